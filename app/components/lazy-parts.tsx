// Parts of the layout that only some page views show — the modals (?show=activateProduct,
// ?show=userLogout), the signed-in user's menu, a toast — so browsers load their code when one
// is shown instead of with every page (the public pages' JavaScript budget has no room for
// them). The server must still put them in the document, for browsers without JavaScript: it
// loads the modules once before serving (see entry.server.tsx), after which the lazy components
// resolve synchronously there.
//
// There is deliberately no <Suspense> around them: the server streams a Suspense boundary's
// content after the page, in a hidden element a script reveals, which browsers without
// JavaScript never show. Without a boundary, a part still loading in the browser holds back
// hydration (the server's markup stays on screen), and a navigation that shows one waits for it.
import { lazy, type ComponentType } from "react";

/** A thenable that calls back at once: React's lazy() then resolves without suspending. */
function settled<T>(value: T): PromiseLike<T> {
  return { then: (onFulfilled) => (onFulfilled ? onFulfilled(value) : value) } as PromiseLike<T>;
}

function serverReadyLazy<P extends object>(load: () => Promise<ComponentType<P>>) {
  let loaded: ComponentType<P> | null = null;
  const preload = async () => {
    loaded ??= await load();
  };
  const Lazy = lazy(
    () =>
      (loaded ? settled({ default: loaded }) : load().then((component) => ({ default: component }))) as Promise<{
        default: ComponentType<P>;
      }>,
  );
  function Part(props: P) {
    return <Lazy {...props} />;
  }
  return { Part, preload };
}

const parts = {
  activation: serverReadyLazy(() => import("./activation-dialog").then((m) => m.ActivationDialog)),
  logout: serverReadyLazy(() => import("./logout-dialog").then((m) => m.LogoutDialog)),
  userMenu: serverReadyLazy(() => import("./user-menu").then((m) => m.UserMenu)),
  toast: serverReadyLazy(() => import("./toast").then((m) => m.ToastMessage)),
};

export const ActivationDialog = parts.activation.Part;
export const LogoutDialog = parts.logout.Part;
export const UserMenu = parts.userMenu.Part;
export const ToastMessage = parts.toast.Part;

export async function preloadLazyParts(): Promise<void> {
  await Promise.all(Object.values(parts).map((part) => part.preload()));
}
