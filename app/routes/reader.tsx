// PLACEHOLDER — being written.
export async function action() {
  throw new Response("Not Found", { status: 404 });
}
