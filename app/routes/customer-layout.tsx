// The layout of the signed-in customer's pages (app/routes.ts): no chrome of its own, only the
// middleware that signs visitors in first (lib/customer.server.ts).
import { Outlet } from "react-router";
import type { Route } from "./+types/customer-layout";
import { requireCustomer } from "#app/lib/customer.server.ts";

export const middleware: Route.MiddlewareFunction[] = [requireCustomer];

export default function CustomerLayout() {
  return <Outlet />;
}
