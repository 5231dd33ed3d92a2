import { Children, useId, useRef } from "react";
import { useNavigate } from "react-router";
import { usePrerenderedHtml, type Prerendered } from "../lib/prerendered";
import { useHydrated } from "../lib/use-hydrated";
import { ArrowLeftIcon, ChevronIcon } from "./icons";

/** Scroll animation length (spec §9: carousel transition 500 ms). */
const CAROUSEL_TRANSITION_MS = 500;

/** Below the strip on phones: how many items there are, and that the rest are a swipe away. */
export function carouselHint(count: number): string {
  return `${count} elementi: scorri per vederli tutti`;
}

/**
 * A carousel that is a scroll-snap strip without JavaScript (3/2/1 items per view, or 5/2/1 for
 * suggestions). Once hydrated it adds previous/next buttons that wrap around at the ends.
 * It never moves by itself. On phones, where one item fills the view, the next one peeks in at
 * the edge and a line says how many there are, so the others are found without the buttons.
 * Its items are React children, or `prerendered`: CarouselItems rendered to HTML once on the
 * server for many customers (see lib/prerender.server.tsx).
 */
export function Carousel({
  label,
  size = "default",
  ...items
}: {
  label: string;
  size?: "default" | "suggestions";
} & ({ children: React.ReactNode } | { prerendered: Prerendered; count: number })) {
  const track = useRef<HTMLUListElement>(null);
  const enhanced = useHydrated();
  const hintId = useId();
  const count = "prerendered" in items ? items.count : Children.count(items.children);

  function step(direction: 1 | -1) {
    const el = track.current;
    if (!el) return;
    const item = el.firstElementChild as HTMLElement | null;
    const stride = item ? item.offsetWidth + parseFloat(getComputedStyle(el).columnGap || "0") : el.clientWidth;
    const max = el.scrollWidth - el.clientWidth;
    let target = el.scrollLeft + direction * stride;
    // Infinite: past the last item comes the first, before the first the last.
    if (direction === 1 && el.scrollLeft >= max - 2) target = 0;
    else if (direction === -1 && el.scrollLeft <= 2) target = max;
    animateScroll(el, Math.max(0, Math.min(max, target)));
  }

  return (
    <div
      className="relative"
      role="region"
      aria-roledescription="carosello"
      aria-label={label}
      aria-describedby={count > 1 ? hintId : undefined}
    >
      {"prerendered" in items ? (
        <PrerenderedItems track={track} size={size} part={items.prerendered} />
      ) : (
        <ul ref={track} className="carousel" data-size={size}>
          <CarouselItems>{items.children}</CarouselItems>
        </ul>
      )}
      {count > 1 && (
        <p id={hintId} className="mt-1 text-sm text-muted md:hidden">
          {carouselHint(count)}
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

function PrerenderedItems({
  track,
  size,
  part,
}: {
  track: React.RefObject<HTMLUListElement | null>;
  size: string;
  part: Prerendered;
}) {
  const html = usePrerenderedHtml(part);
  const navigate = useNavigate();
  // The portal's links in prerendered HTML are plain anchors: followed here like <Link>s.
  function followPortalLink(event: React.MouseEvent) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element).closest("a");
    if (!anchor || anchor.target || anchor.origin !== window.location.origin) return;
    event.preventDefault();
    void navigate(anchor.pathname + anchor.search + anchor.hash);
  }
  return (
    <ul
      ref={track}
      id={part.id}
      className="carousel"
      data-size={size}
      onClick={followPortalLink}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
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
