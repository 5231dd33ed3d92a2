// The payment providers. A file of its own: subscriptions name their provider, and payments name
// the subscription month they paid, so neither of those two files has to import the other.
export const PAYMENT_GATEWAYS = ["sandbox", "stripe"] as const;
export type PaymentGatewayName = (typeof PAYMENT_GATEWAYS)[number];
