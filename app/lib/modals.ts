// Modals are states of the address (?show=<name>), so they open without JavaScript too.
export type ModalName = "userLogout" | "activateProduct" | "deleted";

/** The current address with ?show=<modal>. */
export function withShow(pathname: string, search: string, modal: ModalName): string {
  const params = new URLSearchParams(search);
  params.set("show", modal);
  return `${pathname}?${params}`;
}

/** The current address without ?show: where 'Annulla' goes and where the user stays. */
export function withoutShow(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete("show");
  const rest = params.toString();
  return rest ? `${pathname}?${rest}` : pathname;
}
