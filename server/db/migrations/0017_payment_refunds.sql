-- squawk-ignore-file ban-drop-column, require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
-- payments.refund_ref was dropped in the release that stopped reading it: an instance of the
-- previous release would have failed on it during a rolling upgrade. Today the drop waits for the
-- next release (expand/contract).
CREATE TABLE "payment_refunds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payment_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"order_item_id" uuid,
	"amount_cents" integer NOT NULL,
	"parts" jsonb,
	"reason" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"gateway_refund_id" text,
	"gateway_status" text,
	"failure_reason" text,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"next_check_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_refunds_gateway_refund_id_unique" UNIQUE("gateway_refund_id"),
	CONSTRAINT "payment_refunds_amount_positive" CHECK ("payment_refunds"."amount_cents" > 0),
	CONSTRAINT "payment_refunds_line_named" CHECK (("payment_refunds"."scope" = 'line') = ("payment_refunds"."order_item_id" is not null))
);
--> statement-breakpoint
ALTER TABLE "payment_refunds" ADD CONSTRAINT "payment_refunds_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_refunds" ADD CONSTRAINT "payment_refunds_order_item_id_order_items_id_fk" FOREIGN KEY ("order_item_id") REFERENCES "public"."order_items"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payment_refunds_payment_idx" ON "payment_refunds" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "payment_refunds_pending_idx" ON "payment_refunds" USING btree ("state","next_check_at");--> statement-breakpoint
-- The refunds made before refunds had a table of their own: each gave a whole payment back.
INSERT INTO "payment_refunds" ("payment_id", "scope", "amount_cents", "reason", "state", "gateway_refund_id", "gateway_status", "requested_by", "requested_at", "completed_at")
-- An order an operator refunded is `refunded`; any other's refunded payment was a charge it could no longer take.
SELECT p."id", 'payment', p."amount_cents",
  CASE WHEN o."status" = 'refunded' THEN 'operator' ELSE 'order_closed' END,
  'succeeded', p."refund_ref", 'succeeded',
  CASE WHEN o."status" = 'refunded' THEN 'operator:unknown' ELSE 'portal' END,
  coalesce(p."refunded_at", p."paid_at"), coalesce(p."refunded_at", p."paid_at")
FROM "payments" p JOIN "orders" o ON o."id" = p."order_id" WHERE p."status" = 'refunded';--> statement-breakpoint
ALTER TABLE "payments" DROP COLUMN "refund_ref";