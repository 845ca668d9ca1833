import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, TOKENS, configScript, parseConfig } from './config';

describe('parseConfig', () => {
  it('reads the build-time tokens as they are', () => {
    expect(parseConfig(JSON.stringify(TOKENS))).toEqual(TOKENS);
  });

  it('reads JSON-escaped values as the server writes them into the data block', () => {
    const text = '{"brand":"Life \\u0026 Hope \\"UA\\" \\u003cb\\u003e","redirectUrl":"https://example.org/?a=1\\u0026b=2"}';
    const config = parseConfig(text);
    expect(config.brand).toBe('Life & Hope "UA" <b>');
    expect(config.redirectUrl).toBe('https://example.org/?a=1&b=2');
  });

  it('gives empty strings for a missing element, bad JSON, or missing and non-string values', () => {
    const empty = Object.fromEntries(CONFIG_KEYS.map((key) => [key, '']));
    expect(parseConfig(null)).toEqual(empty);
    expect(parseConfig('{not json')).toEqual(empty);
    expect(parseConfig('[1,2]')).toEqual(empty);
    expect(parseConfig('{"brand":7,"phone":"123"}')).toEqual({ ...empty, phone: '123' });
  });
});

describe('configScript', () => {
  it('writes a JSON data block that a value cannot break out of', () => {
    const html = configScript({ ...TOKENS, brand: '</script><script>alert(1)</script>' });
    expect(html.startsWith('<script id="zayavka-config" type="application/json">{')).toBe(true);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    const json = html.slice(html.indexOf('>') + 1, html.lastIndexOf('</script>'));
    expect(parseConfig(json).brand).toBe('</script><script>alert(1)</script>');
  });
});
