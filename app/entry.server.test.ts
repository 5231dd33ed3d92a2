// The scripts wait for the first paint (issue 30): the shell as React Router and React write it.
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { deferScriptsPastFirstPaint } from "./entry.server";

const SHELL =
  '<head><link rel="stylesheet" href="/assets/app.css" data-precedence="default"/>' +
  '<link rel="modulepreload" href="/assets/entry.client.js" nonce="n1"/>' +
  '<link rel="modulepreload" href="/assets/root.js" nonce="n1"/></head>' +
  '<body><main>Pagina</main><script nonce="n1">window.__reactRouterContext = {};</script>' +
  '<script nonce="n1" type="module" async="">;\nimport * as route0 from "/assets/root.js";\nimport("/assets/entry.client.js");</script></body>';

describe("deferScriptsPastFirstPaint", () => {
  const deferred = deferScriptsPastFirstPaint(Buffer.from(SHELL)).toString();

  it("leaves the stylesheet alone in the head: no module is asked for before the first paint", () => {
    expect(deferred).not.toContain('<link rel="modulepreload"');
    expect(deferred).not.toMatch(/<script[^>]*type="module"/);
    expect(deferred).toContain('<head><link rel="stylesheet" href="/assets/app.css" data-precedence="default"/></head>');
  });

  it("keeps the module script as text, and starts it and its modules after the first paint, with the page's nonce", () => {
    expect(deferred).toContain(
      '<script nonce="n1" type="text/plain" id="avvio-script">;\nimport * as route0 from "/assets/root.js";\nimport("/assets/entry.client.js");</script>',
    );
    const start = deferred.slice(deferred.lastIndexOf('<script nonce="n1">'));
    expect(start).toMatch(/^<script nonce="n1">requestAnimationFrame\(function\(\)\{setTimeout\(/);
    expect(start).toContain('var modules=["/assets/entry.client.js","/assets/root.js"]');
    // The other scripts (the router's context) are as they were.
    expect(deferred).toContain('<script nonce="n1">window.__reactRouterContext = {};</script>');
  });

  it("leaves a shell it does not recognise as it is", () => {
    const other = '<head><link rel="stylesheet" href="/a.css"/></head><body><script src="/x.js"></script></body>';
    expect(deferScriptsPastFirstPaint(Buffer.from(other)).toString()).toBe(other);
  });

  it("asks for the modules in short tasks, then starts the module script", () => {
    const modules = Array.from({ length: 9 }, (_, i) => `/assets/m${i}.js`);
    const shell =
      `<head>${modules.map((href) => `<link rel="modulepreload" href="${href}" nonce="n1"/>`).join("")}</head>` +
      '<body><script nonce="n1" type="module" async="">import("/assets/m0.js");</script></body>';
    const page = deferScriptsPastFirstPaint(Buffer.from(shell)).toString();
    const start = /<script nonce="n1">(.*?)<\/script>$/.exec(page.replace("</body>", ""))![1]!;
    // A page whose clock moves 1 ms at each look: each task fits a few appends only.
    let clock = 0;
    const queue: (() => void)[] = [];
    const appended: { task: number; what: string }[] = [];
    let task = 0;
    const element = (tag: string) => ({ tag, rel: "", href: "", type: "", textContent: "" });
    const append = (el: ReturnType<typeof element>) =>
      appended.push({ task, what: el.tag === "link" ? `${el.rel} ${el.href}` : `${el.type} ${el.textContent}` });
    runInNewContext(start, {
      performance: { now: () => clock++ },
      requestAnimationFrame: (run: () => void) => queue.push(run),
      setTimeout: (run: () => void) => queue.push(run),
      document: {
        createElement: element,
        getElementById: () => ({ textContent: 'import("/assets/m0.js");' }),
        head: { appendChild: append },
        body: { appendChild: append },
      },
    });
    for (; queue.length > 0; task++) queue.shift()!();
    expect(appended.map((a) => a.what)).toEqual([
      ...modules.map((href) => `modulepreload ${href}`),
      'module import("/assets/m0.js");',
    ]);
    // Spread over several tasks, none of them all the appends.
    const tasks = new Set(appended.map((a) => a.task));
    expect(tasks.size).toBeGreaterThan(2);
    for (const t of tasks) expect(appended.filter((a) => a.task === t).length).toBeLessThan(modules.length);
  });
});
