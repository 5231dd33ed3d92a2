// The one source of "now" for the services. Every time a service writes or compares comes from
// the clock it was given, never from the database's now() or a column default, so tests can fix
// the date and a run passes on any day.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/**
 * Development only: a clock running ahead of the system's by an offset a developer moves from
 * /dev/orologio, to watch the subscription's months come due (docs/features.md, "Moving the
 * clock"). The offset is kept in a file, so a restart does not send time back.
 */
export function createShiftableClock(file: string) {
  let offsetMs = 0;
  try {
    offsetMs = Number(JSON.parse(readFileSync(file, "utf8")).offsetMs) || 0;
  } catch {
    // No file yet: the system's time.
  }
  const save = () => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ offsetMs }) + "\n");
  };
  return {
    now: (() => new Date(Date.now() + offsetMs)) as Clock,
    offsetMs: () => offsetMs,
    /** Moves the clock forward (never back: what was written at a later time would come first). */
    advance(ms: number) {
      if (!(ms > 0)) throw new RangeError("The clock only moves forward");
      offsetMs += ms;
      save();
    },
  };
}

export type ShiftableClock = ReturnType<typeof createShiftableClock>;
