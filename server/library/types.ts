// Shapes the library hands to the pages. Pure types: routes and components import them.
import type { EntitlementSource } from "#server/db/schema/index.ts";

export type LibraryTypeCode = "ebook" | "paper_flex" | "paper_hard" | "corso" | "rivista";

/** A product the customer owns (or owned), as a dashboard card shows it. */
export type LibraryItem = {
  productId: string;
  name: string;
  typeCode: LibraryTypeCode;
  typeName: string;
  sku: string;
  isbn: string | null;
  issn: string | null;
  cover: string;
  shortAuthors: string | null;
  edition: string | null;
  pubdate: Date | null;
  /** End of the longest grant; null: no end. */
  expiresAt: Date | null;
  /** The server's expiry flag (the grant is over at the time of the request). */
  expired: boolean;
  /**
   * How the customer got it: the longest grant's source and start (a product with a card never
   * waits for its grant to start, only EDU stacks, so its start is when it was obtained).
   */
  obtained: Pick<GrantOrigin, "source" | "at">;
  /** The reading session, once the customer has opened the product. */
  reading: { startedAt: Date; lastReadAt: Date; status: string } | null;
  /** Where 'Accedi al corso' (course platform, from moodle_id) or 'Vai alla rivista' leads. */
  externalUrl: string | null;
  /** The product page of the shop, for 'Acquista di nuovo'. */
  buyLink: string;
};

/** What gave the customer a grant of a product, and when. */
export type GrantOrigin = {
  source: EntitlementSource;
  /** When it was given: the code entered, the order paid, the subscription's month charged, the operator's command. */
  at: Date;
  /** The order behind it (none for an operator's grant); a purchase names it, with its receipt. */
  orderCode: string | null;
  /** A subscription's month: its instalment within the term (rata n di 6); null when not known. */
  instalment: number | null;
};

/** One grant of a product: what gave it, and when it runs (`expiresAt` null: no end). */
export type AccessGrant = GrantOrigin & { startsAt: Date; expiresAt: Date | null };

/** How a customer got a product and until when, as 'I miei acquisti' tells it. */
export type ProductAccess = {
  productId: string;
  name: string;
  typeName: string;
  /** The grant giving access now (of several at once, the one that lasts longest); null when none runs. */
  current: AccessGrant | null;
  /** Grants still to start (EDU's months stack one after another), the earliest first. */
  next: AccessGrant[];
  /** When none runs and none is to come: the one that ended last. */
  ended: AccessGrant | null;
};

/** A product suggested on the dashboard carousels. */
export type Suggestion = {
  productId: string;
  name: string;
  typeCode: LibraryTypeCode;
  typeName: string;
  sku: string;
  cover: string;
  shortAuthors: string | null;
  pubdate: Date | null;
  priceCents: number;
  buyLink: string;
};

export type PromoSmallBox = { title: string; url: string; cta: string; color: string };

export type PromoBox = {
  areaCode: string;
  title: string;
  subtitle: string | null;
  titleIsImage: boolean;
  titleImage: string | null;
  isBanner: boolean;
  bannerImage: string | null;
  bannerUrl: string | null;
  bannerCta: string | null;
  smallBoxes: PromoSmallBox[];
};

export type ContactBox = { title: string; description: string; url: string; cta: string };
