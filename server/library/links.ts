// Addresses of a product outside the portal: the course platform, the shop's product page.

/** 'Accedi al corso': the course on the course platform, by its moodle_id. */
export function courseUrl(coursePlatform: string, moodleId: number): string {
  return `${coursePlatform}/course/view.php?id=${moodleId}`;
}

/** 'Acquista di nuovo': the product's page on the shop (magento_getproductpage by sku). */
export function buyLink(shop: string, sku: string): string {
  return `${shop}/catalog/product/sku/${encodeURIComponent(sku)}`;
}
