export { EDU_MONTHS, EDU_PRODUCT_CODE } from "../../server/library/constants";
/** EDU offer constants (spec §9). */
export const EDU_DISCOUNT_PERCENT = 50;
