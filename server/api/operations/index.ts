// Every operation of the API, in the order the manifest and the documentation list them.
import type { Operation } from "#server/api/operation.ts";
import { aaaOperations } from "./aaa.ts";
import { ecommerceOperations } from "./ecommerce.ts";
import { mediaOperations } from "./media.ts";
import { orderOperations } from "./order.ts";
import { pimOperations } from "./pim.ts";
import { readerOperations } from "./reader.ts";

export const API_OPERATIONS: readonly Operation[] = [
  ...aaaOperations,
  ...orderOperations,
  ...mediaOperations,
  ...pimOperations,
  ...ecommerceOperations,
  ...readerOperations,
];
