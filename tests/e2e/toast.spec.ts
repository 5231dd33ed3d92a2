// A toast's close control, by keyboard, with and without JavaScript.
import { expect, test } from "@playwright/test";
import { claimCustomer, signInOverHttp } from "./customers";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { expectAccessible } from "./support";
import { tabTo } from "./keyboard";

giveEachTestItsOwnAddress();

test("a toast's close button is a button of 24 px or more, reached by keyboard, that holds the toast while focused and closes it", async ({
  page,
}) => {
  await signInOverHttp(page, claimCustomer("student"), "/profile/");
  const surname = page.getByRole("main").getByLabel("Cognome");
  await tabTo(page, surname);
  await page.keyboard.type("i");
  await page.keyboard.press("Enter");

  const toast = page.locator(".toast").filter({ hasText: "Profilo aggiornato" });
  await expect(toast).toBeAttached();
  // Held where it started, whatever time this machine took to get here: the 5 s are not tested.
  await toast.evaluate((el) =>
    el.getAnimations().forEach((animation) => {
      animation.currentTime = 0;
      animation.pause();
    }),
  );
  const close = toast.getByRole("button", { name: "Chiudi" });
  await expect(close).toBeVisible();
  const box = (await close.boundingBox())!;
  expect(box.width).toBeGreaterThanOrEqual(24);
  expect(box.height).toBeGreaterThanOrEqual(24);
  await expectAccessible(page);

  if (test.info().project.use.javaScriptEnabled === false) {
    // A new page: the toast comes right after 'Vai al contenuto'.
    expect(await tabTo(page, close)).toBeLessThanOrEqual(2);
  } else {
    // The page was not reloaded: the focus is still in the form, below.
    await tabTo(page, close, { key: "Shift+Tab" });
  }
  // While its button has the focus, the countdown to hiding it waits.
  await expect.poll(() => toast.evaluate((el) => getComputedStyle(el).animationPlayState)).toBe("paused");

  await page.keyboard.press("Enter");
  await expect(toast.getByText("Profilo aggiornato")).toBeHidden();
});
