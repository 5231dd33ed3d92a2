import { coverPath } from "#shared/links.ts";

export function ProductCover({ cover, className = "" }: { cover: string; className?: string }) {
  // Decorative: the title is always next to the cover.
  return <img src={coverPath(cover)} alt="" width={150} height={210} loading="lazy" className={`cover ${className}`} />;
}
