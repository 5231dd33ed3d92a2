// oidc-provider's storage in PostgreSQL: one table for every model (sessions, interactions,
// grants, authorization codes, access and refresh tokens). Upserts and deletes are repeated when
// PostgreSQL restarts under them (they are idempotent); consuming a code is not (a second run
// would refuse it).
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { errors, type Adapter, type AdapterPayload } from "oidc-provider";
import type { Database } from "#server/db/client.ts";
import { idempotent } from "#server/db/reconnecting-pool.ts";
import { oidcPayloads } from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";

export function createAdapterClass(db: Database, now: Clock = systemClock) {
  const notExpired = () => or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, now()));

  return class PostgresAdapter implements Adapter {
    readonly type: string;

    constructor(name: string) {
      this.type = name;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const row = {
        id,
        type: this.type,
        payload,
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expiresAt: expiresIn ? new Date(now().getTime() + expiresIn * 1000) : null,
      };
      await idempotent(db, () =>
        db
          .insert(oidcPayloads)
          .values(row)
          .onConflictDoUpdate({
            target: [oidcPayloads.type, oidcPayloads.id],
            set: { payload: row.payload, grantId: row.grantId, userCode: row.userCode, uid: row.uid, expiresAt: row.expiresAt },
          }),
      );
    }

    private async findWhere(condition: ReturnType<typeof eq>): Promise<AdapterPayload | undefined> {
      const [row] = await db
        .select({ payload: oidcPayloads.payload, consumedAt: oidcPayloads.consumedAt })
        .from(oidcPayloads)
        .where(and(eq(oidcPayloads.type, this.type), condition, notExpired()))
        .limit(1);
      if (!row) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }

    find(id: string) {
      return this.findWhere(eq(oidcPayloads.id, id));
    }

    findByUid(uid: string) {
      return this.findWhere(eq(oidcPayloads.uid, uid));
    }

    findByUserCode(userCode: string) {
      return this.findWhere(eq(oidcPayloads.userCode, userCode));
    }

    /**
     * Marks a code or refresh token used, in one statement that matches only an unused row: of
     * requests racing with the same code, exactly one gets through; the others fail here.
     */
    async consume(id: string): Promise<void> {
      const consumed = await db
        .update(oidcPayloads)
        .set({ consumedAt: now() })
        .where(and(eq(oidcPayloads.type, this.type), eq(oidcPayloads.id, id), isNull(oidcPayloads.consumedAt)))
        .returning({ id: oidcPayloads.id });
      if (consumed.length === 0) throw new errors.InvalidGrant("grant request is invalid");
    }

    async destroy(id: string): Promise<void> {
      await idempotent(db, () => db.delete(oidcPayloads).where(and(eq(oidcPayloads.type, this.type), eq(oidcPayloads.id, id))));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await idempotent(db, () => db.delete(oidcPayloads).where(eq(oidcPayloads.grantId, grantId)));
    }
  };
}
