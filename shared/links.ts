// Addresses of a product: the course platform, the shop's product page, the built-in reader.

/** 'Accedi al corso': the course on the course platform, by its moodle_id. */
export function courseUrl(coursePlatform: string, moodleId: number): string {
  return `${coursePlatform}/course/view.php?id=${moodleId}`;
}

/** 'Acquista di nuovo': the product's page on the shop (magento_getproductpage by sku). */
export function buyLink(shop: string, sku: string): string {
  return `${shop}/catalog/product/sku/${encodeURIComponent(sku)}`;
}

/** The built-in reader's page of a product (GET shows it, POST records the chapter). */
export function readerPath(productId: string): string {
  return `/leggi/${encodeURIComponent(productId)}/`;
}

/** 'Inizia a leggere' / 'Continua a leggere' post here: the reading session starts or resumes. */
export function readerOpenPath(productId: string): string {
  return `${readerPath(productId)}apri`;
}
