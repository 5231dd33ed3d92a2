// How long a database call took to settle, for the tests of the pool's bounds (a hang, an
// outage): those bounds are real time (timeouts.ts), not the injected clock's.

/** How long `work` took to settle, and whether it failed. */
export async function timed(work: () => PromiseLike<unknown>) {
  const started = performance.now();
  const failed = await Promise.resolve(work()).then(
    () => false,
    () => true,
  );
  return { failed, ms: performance.now() - started };
}
