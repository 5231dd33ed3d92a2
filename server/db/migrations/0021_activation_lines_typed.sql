-- The lines of the orders activation codes made were written without their product's type
-- (a checkout's lines always had it): the API answered their `producttype` as null. They get it
-- from their product, as the lines written from now on do.
UPDATE "order_items" AS i
SET "product_type_code" = t."code"
FROM "products" AS p
JOIN "product_types" AS t ON t."id" = p."product_type_id"
WHERE i."product_type_code" IS NULL
  AND i."product_id" = p."id"
  AND EXISTS (SELECT 1 FROM "activation_redemptions" AS r WHERE r."order_id" = i."order_id");
