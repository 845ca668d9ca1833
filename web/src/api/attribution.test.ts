import { describe, expect, it } from 'vitest';
import { pageAttribution } from './attribution';

describe('pageAttribution', () => {
  const page = { search: '?utm_source=facebook&utm_campaign=%D0%B7%D0%B8%D0%BC%D0%B0&utm_term=+&fbclid=abc', host: 'zayavka.example' };

  it("takes the page's own utm_* parameters, and the linking site's host only", () => {
    expect(pageAttribution(page, 'https://l.facebook.com/l.php?u=secret')).toEqual({
      utm_source: 'facebook',
      utm_campaign: 'зима',
      referrer: 'l.facebook.com',
    });
  });

  it('says nothing of a visit from this site itself, from nowhere, or from something that is no URL', () => {
    expect(pageAttribution({ search: '', host: 'zayavka.example' }, 'https://zayavka.example/privacy-policy')).toEqual({});
    expect(pageAttribution({ search: '', host: 'zayavka.example' }, '')).toEqual({});
    expect(pageAttribution({ search: '', host: 'zayavka.example' }, 'not a url')).toEqual({});
  });

  it('cuts a very long value', () => {
    const long = pageAttribution({ search: `?utm_content=${'x'.repeat(500)}`, host: 'h' }, '');
    expect(long.utm_content).toHaveLength(200);
  });
});
