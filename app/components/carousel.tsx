import { Children, useId, useRef, useState } from "react";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { ArrowLeftIcon, ChevronIcon } from "./icons";

/** Scroll animation length (spec §9: carousel transition 500 ms). */
const CAROUSEL_TRANSITION_MS = 500;

/** Below the strip on phones: how many items there are, and that the rest are a swipe away. */
export function carouselHint(count: number): string {
  return `${count} elementi: scorri per vederli tutti`;
}

/** What a screen reader is told after a move: which items are now in view (1-based, inclusive). */
export function carouselPosition(first: number, last: number, count: number): string {
  return first === last ? `Elemento ${first} di ${count}` : `Elementi da ${first} a ${last} di ${count}`;
}

/**
 * A carousel that is a scroll-snap strip without JavaScript (3/2/1 items per view, or 5/2/1 for
 * suggestions). Once hydrated it adds previous/next buttons that wrap around at the ends.
 * It never moves by itself. On phones, where one item fills the view, the next one peeks in at
 * the edge and a line says how many there are, so the others are found without the buttons.
 * Its items are React children, or a `track` of `count` items rendered elsewhere (the dashboard's
 * PrerenderedTrack: items rendered to HTML once for many customers).
 */
export function Carousel({
  label,
  size = "default",
  ...items
}: {
  label: string;
  size?: "default" | "suggestions";
} & ({ children: React.ReactNode } | { track: React.ReactElement; count: number })) {
  const region = useRef<HTMLDivElement>(null);
  const enhanced = useHydrated();
  const hintId = useId();
  const count = "track" in items ? items.count : Children.count(items.children);
  // Said politely after each move: the strip's scroll is silent to a screen reader.
  const [position, setPosition] = useState("");

  function step(direction: 1 | -1) {
    const el = region.current?.querySelector<HTMLElement>(".carousel");
    if (!el) return;
    const item = el.firstElementChild as HTMLElement | null;
    const stride = item ? item.offsetWidth + parseFloat(getComputedStyle(el).columnGap || "0") : el.clientWidth;
    const max = el.scrollWidth - el.clientWidth;
    let target = el.scrollLeft + direction * stride;
    // Infinite: past the last item comes the first, before the first the last.
    if (direction === 1 && el.scrollLeft >= max - 2) target = 0;
    else if (direction === -1 && el.scrollLeft <= 2) target = max;
    target = Math.max(0, Math.min(max, target));
    animateScroll(el, target);
    const shown = Math.max(1, Math.floor((el.clientWidth + 2) / stride));
    const first = target >= max - 2 ? Math.max(1, count - shown + 1) : Math.round(target / stride) + 1;
    setPosition(carouselPosition(first, Math.min(count, first + shown - 1), count));
  }

  return (
    <div
      ref={region}
      className="relative"
      role="region"
      aria-roledescription="carosello"
      aria-label={label}
      aria-describedby={count > 1 ? hintId : undefined}
    >
      {"track" in items ? (
        items.track
      ) : (
        <ul className="carousel" data-size={size}>
          <CarouselItems>{items.children}</CarouselItems>
        </ul>
      )}
      {count > 1 && (
        <p id={hintId} className="mt-1 text-sm text-muted md:hidden">
          {carouselHint(count)}
        </p>
      )}
      {enhanced && (
        <p aria-live="polite" className="sr-only">
          {position}
        </p>
      )}
      {enhanced && (
        <div className="mt-2 flex justify-end gap-2">
          <button type="button" className="icon-button border border-line bg-white text-brand" onClick={() => step(-1)}>
            <ArrowLeftIcon />
            <span className="sr-only">Precedente</span>
          </button>
          <button type="button" className="icon-button border border-line bg-white text-brand" onClick={() => step(1)}>
            <ChevronIcon />
            <span className="sr-only">Successivo</span>
          </button>
        </div>
      )}
    </div>
  );
}

/** The carousel's items: also what the server prerenders for `prerendered`. */
export function CarouselItems({ children }: { children: React.ReactNode }) {
  return Children.map(children, (child) => <li className="flex">{child}</li>);
}

function animateScroll(el: HTMLElement, target: number) {
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const start = el.scrollLeft;
  if (reduced || start === target) {
    el.scrollLeft = target;
    return;
  }
  // Snap and smooth scrolling would fight the animation; restore them afterwards.
  el.style.scrollSnapType = "none";
  el.style.scrollBehavior = "auto";
  const began = performance.now();
  const frame = (now: number) => {
    const t = Math.min(1, (now - began) / CAROUSEL_TRANSITION_MS);
    const eased = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
    el.scrollLeft = start + (target - start) * eased;
    if (t < 1) requestAnimationFrame(frame);
    else {
      el.style.scrollSnapType = "";
      el.style.scrollBehavior = "";
    }
  };
  requestAnimationFrame(frame);
}
