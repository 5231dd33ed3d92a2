/** A minimal cookie jar for driving redirect flows with fetch in tests (ignores paths). */
export function createCookieJar() {
  const cookies = new Map<string, string>();
  return {
    store(response: Response) {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair!.indexOf("=");
        const name = pair!.slice(0, eq).trim();
        const value = pair!.slice(eq + 1).trim();
        if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === "") cookies.delete(name);
        else cookies.set(name, value);
      }
    },
    header(): string {
      return [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    },
    get: (name: string) => cookies.get(name),
  };
}
