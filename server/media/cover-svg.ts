// Generated product covers: the demo catalogue has no artwork, and remote images would break
// the no-third-party rule of the content security policy.
import { createHash } from "node:crypto";
import { escapeMarkup } from "#server/lib/escape.ts";

/** What a cover shows of its product. */
export type CoverInfo = {
  name: string;
  shortAuthors: string | null;
  edition: string | null;
  typeCode: string;
  typeName: string;
};

const PALETTES: Record<string, { bg: string; band: string; text: string }> = {
  ebook: { bg: "#0b2545", band: "#c9a227", text: "#ffffff" },
  paper_flex: { bg: "#7f1a2d", band: "#f3e9d2", text: "#ffffff" },
  paper_hard: { bg: "#1f3d2b", band: "#c9a227", text: "#ffffff" },
  corso: { bg: "#13315c", band: "#8da9c4", text: "#ffffff" },
  rivista: { bg: "#f3e9d2", band: "#a4243b", text: "#1c2430" },
};
const DEFAULT_PALETTE = { bg: "#134074", band: "#eef4ed", text: "#ffffff" };

/** Greedy word wrap by character count; good enough for a serif title on a fixed width. */
function wrapText(text: string, maxChars: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && (line + " " + word).length > maxChars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    lines.length = maxLines;
    lines[maxLines - 1] = `${lines[maxLines - 1]!.replace(/\s+\S*$/, "")}…`;
  }
  return lines;
}

export function renderCoverSvg(info: CoverInfo): string {
  const p = PALETTES[info.typeCode] ?? DEFAULT_PALETTE;
  const title = wrapText(info.name, 16, 5)
    .map((l, i) => `<tspan x="20" dy="${i === 0 ? 0 : 26}">${escapeMarkup(l)}</tspan>`)
    .join("");
  const authors = info.shortAuthors ? escapeMarkup(wrapText(info.shortAuthors, 26, 1)[0] ?? "") : "";
  const edition = info.edition ? escapeMarkup(info.edition) : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 250 350" width="250" height="350" role="img" aria-label="${escapeMarkup(info.name)}">
<rect width="250" height="350" fill="${p.bg}"/>
<rect x="0" y="36" width="250" height="6" fill="${p.band}"/>
<text x="20" y="26" font-family="Georgia,serif" font-size="13" letter-spacing="2" fill="${p.band}">${escapeMarkup(info.typeName.toUpperCase())}</text>
<text x="20" y="90" font-family="Georgia,serif" font-size="22" font-weight="700" fill="${p.text}">${title}</text>
<text x="20" y="262" font-family="Helvetica,Arial,sans-serif" font-size="13" fill="${p.text}" opacity="0.9">${authors}</text>
<text x="20" y="282" font-family="Helvetica,Arial,sans-serif" font-size="11" fill="${p.text}" opacity="0.75">${edition}</text>
<rect x="0" y="306" width="250" height="44" fill="${p.band}"/>
<text x="20" y="334" font-family="Georgia,serif" font-size="15" font-weight="700" fill="${p.bg}">Novalex Editore</text>
</svg>`;
}

export function etagOf(body: string) {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}
