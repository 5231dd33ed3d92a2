export { EDU_MONTHS, EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
/** EDU offer constants (spec §9). */
export const EDU_DISCOUNT_PERCENT = 50;
