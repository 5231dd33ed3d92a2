import type { FaqSection } from "#server/content/service.ts";
import { ChevronIcon } from "./icons";

/** Answers are stored as paragraphs separated by blank lines; "- " lines form a list. */
function Answer({ text }: { text: string }) {
  return (
    <div className="space-y-3 text-ink/90">
      {text.split(/\n\s*\n/).map((block, i) => {
        const lines = block
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean);
        if (lines.length > 0 && lines.every((l) => l.startsWith("- "))) {
          return (
            <ul key={i} className="list-disc space-y-1 pl-6">
              {lines.map((l) => (
                <li key={l}>{l.slice(2)}</li>
              ))}
            </ul>
          );
        }
        return <p key={i}>{lines.join(" ")}</p>;
      })}
    </div>
  );
}

/** An FAQ accordion of native <details> elements: no JavaScript needed. */
export function FaqAccordion({ sections, headingLevel = 2 }: { sections: FaqSection[]; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <div className="faq space-y-10">
      {sections.map((section) => (
        <section key={section.title}>
          <Heading className="mb-4 font-serif text-xl font-bold text-brand">{section.title}</Heading>
          <div className="divide-y divide-line rounded-lg border border-line bg-white">
            {section.entries.map((entry) => (
              <details key={entry.id} className="group">
                <summary className="flex items-center justify-between gap-4 px-5 py-4 font-semibold text-ink hover:bg-paper">
                  {entry.question}
                  <ChevronIcon className="faq-chevron h-5 w-5 shrink-0 text-accent transition-transform duration-300" />
                </summary>
                <div className="px-5 pb-5">
                  <Answer text={entry.answer} />
                </div>
              </details>
            ))}
          </div>
        </section>
      ))}
    </div>
  );
}
