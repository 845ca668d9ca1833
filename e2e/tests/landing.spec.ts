// A visitor on a phone opens the landing page: what is there before they type anything.
import { expect, test } from '../support/fixtures';
import { DEFAULT_PHONE, TEXT, leadForm, openLanding } from '../support/visitor';

test.describe('with the default settings', () => {
  test('the visitor sees the brand, the headline, four benefits and the form by its accessible names', async ({ page }) => {
    await openLanding(page);

    await expect(page).toHaveTitle(/Міжнародна програма підтримки/);
    await expect(page.getByRole('banner').getByRole('link', { name: 'Міжнародна програма підтримки' })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1, name: TEXT.headline })).toBeVisible();
    const benefits = page.getByRole('main').getByRole('listitem');
    await expect(benefits).toHaveCount(4);
    await expect(benefits.nth(1)).toContainText('20');

    const f = leadForm(page);
    await expect(f.name).toBeVisible();
    await expect(f.name).toHaveAttribute('required', '');
    await expect(f.name).toHaveValue('');

    await expect(f.phone).toHaveAttribute('type', 'tel');
    await expect(f.phone).toHaveAttribute('placeholder', TEXT.phonePlaceholder);
    await expect(f.phone).toHaveAttribute('required', '');

    await expect(f.question).toHaveAccessibleName(/\S/);
    await expect(f.question.getByRole('radio')).toHaveCount(2);
    await expect(f.yes).not.toBeChecked();
    await expect(f.no).not.toBeChecked();
    await expect(f.yes).not.toHaveAttribute('required');
    await expect(f.no).not.toHaveAttribute('required');

    await expect(f.comment).toHaveJSProperty('tagName', 'TEXTAREA');
    await expect(f.comment).toHaveAttribute('rows', '3');
    await expect(f.comment).not.toHaveAttribute('required');

    await expect(f.agreement).toBeChecked();
    await expect(f.agreement).not.toHaveAttribute('required');
    await expect(f.submit).toBeEnabled();
  });

  test('the footer has three disclosure widgets, the fake example phone and "© 2025"', async ({ page }) => {
    await openLanding(page);
    const footer = page.getByRole('contentinfo');

    for (const [summary, inside] of [
      ['Політика конфіденційності', 'Повний текст політики конфіденційності'],
      ['Публічна оферта', 'Участь у програмі безкоштовна'],
      ['Контакти', DEFAULT_PHONE],
    ] as const) {
      const opener = footer.getByText(summary, { exact: true });
      const content = footer.getByText(inside);
      await expect(content).toBeHidden();
      await opener.click();
      await expect(content).toBeVisible();
      await opener.click();
      await expect(content).toBeHidden();
    }
    await expect(footer.getByText(/© 2025/)).toBeVisible();
  });

  test('the "публічної оферти" link opens the public offer and leaves the agreement checked', async ({ page }) => {
    await openLanding(page);
    const offerText = page.getByRole('contentinfo').getByText('Участь у програмі безкоштовна');
    await expect(offerText).toBeHidden();

    await leadForm(page).form.getByRole('link', { name: TEXT.agreement }).click();

    await expect(offerText).toBeVisible();
    await expect(offerText).toBeInViewport();
    await expect(leadForm(page).agreement).toBeChecked();
  });
});

test.describe('with a contact phone set by the operator', () => {
  test.use({ settings: { ZAYAVKA_CONTACT_PHONE: '+380 44 555 12 34' } });

  test('the footer shows that phone as a tel: link', async ({ page }) => {
    await openLanding(page);
    const footer = page.getByRole('contentinfo');
    await footer.getByText('Контакти', { exact: true }).click();

    const phone = footer.getByRole('link', { name: '+380 44 555 12 34' });
    await expect(phone).toBeVisible();
    await expect(phone).toHaveAttribute('href', 'tel:+380445551234');
    await expect(footer).not.toContainText(DEFAULT_PHONE);
  });
});
