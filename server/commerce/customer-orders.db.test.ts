// A customer's orders as the API lists them: newest first, paged, the paid ones, without the
// printed books only, by code; order lines and payments only of the customer's own orders.
// The listing reads no clock: the orders' times, relative to the tests' start, only order them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productOfType } from "#tests/support/catalog.ts";
import { afterStart, MINUTE } from "#tests/support/clock.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { insertOrder, type InsertedOrder } from "#tests/support/orders.ts";
import { createAccountsService } from "#server/accounts/service.ts";
import { createCustomerOrders } from "./customer-orders.ts";

let database: TestDatabase;
let customerOrders: ReturnType<typeof createCustomerOrders>;
let userId: string;
let otherId: string;
/** Oldest first: a paper book (paid), an eBook (paid), a course (still open). */
let paper: InsertedOrder;
let ebook: InsertedOrder;
let open: InsertedOrder;
let others: InsertedOrder;

beforeAll(async () => {
  database = await createTestDatabase();
  customerOrders = createCustomerOrders(database.db);
  const accounts = createAccountsService(database.db);
  const register = async (email: string) => {
    const r = await accounts.register({ email, password: "Segreta1!", firstname: "A", lastname: "B" });
    if (!r.ok) throw new Error("setup");
    return r.user.id;
  };
  [userId, otherId] = await Promise.all([register("ordini.api@example.it"), register("altri.ordini@example.it")]);
  const of = (code: string) => productOfType(database.db, code);
  const [paperFlex, eb, course] = await Promise.all([of("paper_flex"), of("ebook"), of("corso")]);
  paper = await insertOrder(database.db, { userId, at: afterStart(1 * MINUTE), lines: [{ productId: paperFlex.id }] });
  ebook = await insertOrder(database.db, { userId, at: afterStart(2 * MINUTE), lines: [{ productId: eb.id }] });
  open = await insertOrder(database.db, { userId, at: afterStart(3 * MINUTE), status: "new", lines: [{ productId: course.id }] });
  others = await insertOrder(database.db, { userId: otherId, at: afterStart(4 * MINUTE), lines: [{ productId: eb.id }] });
});

afterAll(() => database?.destroy());

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe("the customer's orders", () => {
  it("come newest first, the open one by when it was made, and never another customer's", async () => {
    expect(ids(await customerOrders.list(userId))).toEqual([open.id, ebook.id, paper.id]);
  });

  it("come a page at a time", async () => {
    expect(ids(await customerOrders.list(userId, { limit: 2 }))).toEqual([open.id, ebook.id]);
    expect(ids(await customerOrders.list(userId, { limit: 2, offset: 2 }))).toEqual([paper.id]);
    expect(await customerOrders.list(userId, { limit: 2, offset: 4 })).toEqual([]);
  });

  it("leave out the unpaid ones, the printed books only, or all but one code, when asked", async () => {
    expect(ids(await customerOrders.list(userId, { activeOnly: true }))).toEqual([ebook.id, paper.id]);
    expect(ids(await customerOrders.list(userId, { hidePaper: true }))).toEqual([open.id, ebook.id]);
    expect(ids(await customerOrders.list(userId, { activeOnly: true, hidePaper: true }))).toEqual([ebook.id]);
    expect(ids(await customerOrders.list(userId, { orderCode: paper.orderCode }))).toEqual([paper.id]);
    expect(await customerOrders.list(userId, { orderCode: others.orderCode })).toEqual([]);
  });

  it("give their lines and payments to their owner only", async () => {
    const [mine] = await customerOrders.list(userId, { orderCode: ebook.orderCode });
    const [theirs] = await customerOrders.list(otherId);
    const lines = [mine!.items[0]!.id, theirs!.items[0]!.id];
    expect((await customerOrders.items(userId, lines)).map((item) => item.orderId)).toEqual([ebook.id]);
    const payments = await customerOrders.payments(userId, { ids: [ebook.payments[0]!.id, others.payments[0]!.id] });
    expect(payments.map((p) => p.orderId)).toEqual([ebook.id]);
  });

  it("name the order statuses by code", async () => {
    expect(await customerOrders.statusNames()).toMatchObject({ new: "Nuovo", payed: "Pagato", refunded: "Rimborsato" });
  });
});
