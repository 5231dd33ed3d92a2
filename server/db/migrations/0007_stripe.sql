-- squawk-ignore-file require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
CREATE TABLE "gateway_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"gateway" text NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_customers" (
	"user_id" uuid NOT NULL,
	"gateway" text NOT NULL,
	"customer_ref" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_customers_customer_ref_unique" UNIQUE("customer_ref")
);
--> statement-breakpoint
ALTER TABLE "payment_customers" ADD CONSTRAINT "payment_customers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gateway_events_event_uq" ON "gateway_events" USING btree ("gateway","event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_customers_pk" ON "payment_customers" USING btree ("user_id","gateway");