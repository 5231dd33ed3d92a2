// The dashboard's promo and contact boxes are the same for everyone of a profession: each is
// rendered once per cached box (see prerender.server) and the page carries only its id.
import type { RouterContextProvider } from "react-router";
import type { ContactBox, PromoBox as PromoBoxData } from "#server/library/types.ts";
import { ContactBoxItems } from "#app/components/contact-boxes.tsx";
import { PromoBox } from "#app/components/promo-box.tsx";
import { prerender } from "./prerender.server";
import type { Prerendered } from "./prerendered";

/** A promo box, rendered; its area code says which one it is. */
export type PromoBoxPart = { areaCode: string; prerendered: Prerendered };

export function promoBoxPart(context: Readonly<RouterContextProvider>, box: PromoBoxData): PromoBoxPart {
  return {
    areaCode: box.areaCode,
    prerendered: prerender(context, { name: "promo", source: box, render: () => <PromoBox box={box} /> }),
  };
}

/** The contact boxes' list items, or null when there are none. */
export function contactBoxesPart(context: Readonly<RouterContextProvider>, boxes: ContactBox[]): Prerendered | null {
  if (boxes.length === 0) return null;
  return prerender(context, { name: "contatti", source: boxes, render: () => <ContactBoxItems boxes={boxes} /> });
}
