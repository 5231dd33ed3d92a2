-- squawk-ignore-file require-concurrent-index-creation, require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
-- The index on orders blocked its writes while built; today it would be built CONCURRENTLY
-- beforehand (docs/operating.md, "Upgrading").
CREATE INDEX "orders_new_by_update_idx" ON "orders" USING btree ("updated_at") WHERE "orders"."status" = 'new';