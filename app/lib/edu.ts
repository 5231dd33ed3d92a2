/** The EDU subscription product (spec §3: code abbonamentoedu). */
export const EDU_PRODUCT_CODE = "abbonamentoedu";
/** EDU offer constants (spec §9). */
export const EDU_MONTHS = 6;
export const EDU_DISCOUNT_PERCENT = 50;
