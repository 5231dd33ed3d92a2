import { Children, useRef } from "react";
import { useHydrated } from "../lib/use-hydrated";
import { ArrowLeftIcon, ChevronIcon } from "./icons";

/** Scroll animation length (spec §9: carousel transition 500 ms). */
export const CAROUSEL_TRANSITION_MS = 500;

/**
 * A carousel that is a scroll-snap strip without JavaScript (3/2/1 items per view, or 5/2/1 for
 * suggestions). Once hydrated it adds previous/next buttons that wrap around at the ends.
 * It never moves by itself.
 */
export function Carousel({
  label,
  size = "default",
  children,
}: {
  label: string;
  size?: "default" | "suggestions";
  children: React.ReactNode;
}) {
  const track = useRef<HTMLUListElement>(null);
  const enhanced = useHydrated();

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
    <div className="relative" role="region" aria-roledescription="carosello" aria-label={label}>
      <ul ref={track} className="carousel" data-size={size}>
        {Children.map(children, (child) => (
          <li className="flex">{child}</li>
        ))}
      </ul>
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
