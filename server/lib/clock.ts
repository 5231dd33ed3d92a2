// The one source of "now" for the services. Every time a service writes or compares comes from
// the clock it was given, never from the database's now() or a column default, so tests can fix
// the date and a run passes on any day.
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
