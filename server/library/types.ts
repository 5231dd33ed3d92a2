// Shapes the library hands to the pages. Pure types: routes and components import them.

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
  /** The reading session, once the customer has opened the product. */
  reading: { startedAt: Date; lastReadAt: Date; status: string } | null;
  /** Where 'Accedi al corso' (course platform, from moodle_id) or 'Vai alla rivista' leads. */
  externalUrl: string | null;
  /** The product page of the shop, for 'Acquista di nuovo'. */
  buyLink: string;
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
