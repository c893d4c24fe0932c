// The masking of patient data for keys without phi:read (src/phi/masking.ts): the interaction's
// phone number, and phone numbers and e-mail addresses in free text - what must be replaced, and
// the numbers that must survive (dates, times, prices, years, counts).
import { describe, expect, it } from 'vitest';
import { countryCodeLength, maskPhoneNumber, redactText, redactTranscript } from '../../src/phi/masking.js';

describe('maskPhoneNumber', () => {
  it.each([
    // The decisions' example: `+`, country calling code and the national number's first digit, then * but the last two.
    ['+34 612 345 689', '+34 6** *** *89'],
    ['+34612345689', '+346******89'],
    ['+1 (415) 555-0123', '+1 (4**) ***-**23'],
    ['+44 20 7946 0958', '+44 2* **** **58'],
    ['+44 7700 900123', '+44 7*** ****23'],
    ['+33 6 12 34 56 78', '+33 6 ** ** ** 78'],
    ['+49 1512 3456789', '+49 1*** *****89'],
    ['+52 55 1234 5678', '+52 5* **** **78'],
    ['+971 50 123 4567', '+971 5* *** **67'],
    ['+7 912 345-67-89', '+7 9** ***-**-89'],
    ['+351 912 345 678', '+351 9** *** *78'],
    // `00` is the international prefix: kept with the country code.
    ['0034 612 345 678', '0034 6** *** *78'],
    // National formats have no country code to keep: every digit but the last two.
    ['06 12 34 56 78', '** ** ** ** 78'],
    ['612345678', '*******78'],
    ['(555) 123-4567', '(***) ***-**67'],
    ['020 7946 0958', '*** **** **58'],
  ])('%s -> %s', (phone, masked) => {
    expect(maskPhoneNumber(phone)).toBe(masked);
  });

  it('keeps the length and every separator of the number', () => {
    for (const phone of ['+34 612 345 689', '+1 (415) 555-0123', '06.12.34.56.78', '+44 (0)20 7946 0958']) {
      const masked = maskPhoneNumber(phone);
      expect(masked).toHaveLength(phone.length);
      expect(masked.replace(/[\d*]/g, '')).toBe(phone.replace(/\d/g, ''));
    }
  });

  it('a very short number keeps no more than its prefix and last two digits', () => {
    expect(maskPhoneNumber('+34 1234')).toBe('+34 **34');
    expect(maskPhoneNumber('+34 12')).toBe('+34 12');
    expect(maskPhoneNumber('123')).toBe('*23');
  });

  it('a value without digits is left alone; an e-mail address (a messaging id) becomes [email]', () => {
    expect(maskPhoneNumber('anonymous')).toBe('anonymous');
    expect(maskPhoneNumber('')).toBe('');
    expect(maskPhoneNumber('612345678@s.whatsapp.net')).toBe('[email]');
  });

  it('country calling codes of one, two and three digits', () => {
    expect(countryCodeLength('14155550123')).toBe(1);
    expect(countryCodeLength('79123456789')).toBe(1);
    expect(countryCodeLength('34612345678')).toBe(2);
    expect(countryCodeLength('447700900123')).toBe(2);
    expect(countryCodeLength('351912345678')).toBe(3);
    expect(countryCodeLength('971501234567')).toBe(3);
    expect(countryCodeLength('353851234567')).toBe(3);
  });
});

describe('redactText: phone numbers', () => {
  it.each([
    ['international with spaces', 'Call +34 612 345 678 today', 'Call [phone] today'],
    ['international compact', 'Call +34612345678 today', 'Call [phone] today'],
    ['NANP with parentheses and dash', 'Call +1 (415) 555-0123.', 'Call [phone].'],
    ['UK with trunk zero in parentheses', 'Ring +44 (0)20 7946 0958, please', 'Ring [phone], please'],
    ['French pairs', 'au 06 12 34 56 78.', 'au [phone].'],
    ['French with dots', 'au 06.12.34.56.78 !', 'au [phone] !'],
    ['French international', 'au +33 6 12 34 56 78', 'au [phone]'],
    ['Spanish national', 'mi número es 612 345 678', 'mi número es [phone]'],
    ['Spanish landline', 'llame al 91 123 45 67', 'llame al [phone]'],
    ['digits only', 'mi número es 612345678', 'mi número es [phone]'],
    ['German with slash', 'unter 030/12345678 erreichbar', 'unter [phone] erreichbar'],
    ['German mobile', 'unter 0171 1234567', 'unter [phone]'],
    ['US national', 'at (555) 123-4567 or 555.123.4567', 'at [phone] or [phone]'],
    ['US toll-free', 'dial 1-800-555-0199', 'dial [phone]'],
    ['US local seven digits', 'dial 555-0123', 'dial [phone]'],
    ['Mexican', 'al 55 1234 5678', 'al [phone]'],
    ['international prefix 00', 'al 0034 612 345 678', 'al [phone]'],
    ['in parentheses', 'me (612 345 678) or [+1 415 555 0123]', 'me ([phone]) or [[phone]]'],
    ['after a label', 'Tel:+34612345678 or Tel.: 612345678', 'Tel:[phone] or Tel.: [phone]'],
    ['two joined by a slash', '612345678/612345679', '[phone]/[phone]'],
    ['non-breaking spaces', 'call 612\u00a0345\u00a0678', 'call [phone]'],
    ['at the end of a line', 'number:\n612 345 678\nthanks', 'number:\n[phone]\nthanks'],
  ])('%s', (_name, text, redacted) => {
    expect(redactText(text)).toBe(redacted);
  });

  it('two numbers in one sentence are each replaced, and the words between them kept', () => {
    expect(redactText('Call +34 612 345 678 or 06 12 34 56 78, or our desk on +44 20 7946 0958.')).toBe('Call [phone] or [phone], or our desk on [phone].');
  });

  it('a number next to a date is replaced without the date', () => {
    expect(redactText('On 04/02/2026 612345678 called')).toBe('On 04/02/2026 [phone] called');
    expect(redactText('at 10:30 06 12 34 56 78')).toBe('at 10:30 [phone]');
  });
});

describe('redactText: what is not a phone number', () => {
  it.each([
    // Dates
    '04/02/2026',
    '4.2.2026',
    '02-04-2026',
    '31.01.2026',
    '2026-02-04',
    '2026/02/04',
    '2026-02-04T10:30:00Z',
    '20260204',
    '04 02 2026',
    'on 4 February 2026',
    'February 4, 2026',
    // Times
    '10:30',
    '17.00',
    '10h30',
    '9:00-17:00',
    '10.30-11.30',
    'at 10:30:15',
    // Years and ranges of years
    'since 1998',
    'in 2026',
    '2025-2026',
    '2025/26',
    'between 2019 and 2026',
    // Prices and amounts
    '€45',
    '45 €',
    '$1,234.56',
    '1.234,56 €',
    '12.345.678 €',
    '12 345 678 €',
    '€ 12 345 678',
    'MX$8100',
    '£51',
    '1,234,567',
    '12345678 euros',
    // Other numbers
    '3.75',
    '45%',
    '12345678 %',
    '35 seconds',
    'room 101',
    'items 1 2 3 4 5 6 7 8',
    '1st, 2nd, 3rd',
    'ref ABC12345678',
    'https://recordings.example.com/calls/12345678.mp3',
    '28001 Madrid',
  ])('%s', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it('a whole summary with dates, times and prices keeps them', () => {
    const summary = 'The patient moved their appointment from 31 January to 02/02/2026 at 17:00; the cleaning costs €60 (2026 prices).';
    expect(redactText(summary)).toBe(summary);
  });
});

describe('redactText: e-mail addresses', () => {
  it.each([
    ['plain', 'write to citas@clinica.es', 'write to [email]'],
    ['plus-addressing', 'write to ana.garcia+dentist@gmail.com.', 'write to [email].'],
    ['subdomains', 'write to reception@mail.clinic.example.co.uk, thanks', 'write to [email], thanks'],
    ['digits, dashes and underscores', 'as john_doe-1985@my-mail.example.org', 'as [email]'],
    ['non-ASCII letters', 'à josé.müller@praxis-straße.de', 'à [email]'],
    ['in angle brackets', 'Ana <ana@example.com>', 'Ana <[email]>'],
    ['two of them', 'a@b.co and c.d@e.fr', '[email] and [email]'],
    ['upper case', 'INFO@CLINIC.COM', '[email]'],
    ['after a label', 'email:ana@example.com', 'email:[email]'],
  ])('%s', (_name, text, redacted) => {
    expect(redactText(text)).toBe(redacted);
  });

  it.each(['@handle', 'name@localhost', 'a @ b.com', 'price@10', 'user@', 'no at sign here'])('not an address: %s', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it('an address that holds a phone number is one [email], not a [phone] inside one', () => {
    expect(redactText('612345678@s.whatsapp.net')).toBe('[email]');
  });
});

describe('redactTranscript', () => {
  it('redacts every turn and keeps the roles and the order', () => {
    const entries = [
      { role: 'assistant', content: 'Hello, this is the clinic. Is +34 612 345 678 still your number?' },
      { role: 'user', content: 'No, use ana@example.com or 06 12 34 56 78.' },
      { role: 'assistant', content: 'Booked for 04/02/2026 at 10:30, €45.' },
    ];
    expect(redactTranscript(entries)).toEqual([
      { role: 'assistant', content: 'Hello, this is the clinic. Is [phone] still your number?' },
      { role: 'user', content: 'No, use [email] or [phone].' },
      { role: 'assistant', content: 'Booked for 04/02/2026 at 10:30, €45.' },
    ]);
    // The stored transcript is not changed in place.
    expect(entries[0]!.content).toContain('+34 612 345 678');
  });
});

describe('speed', () => {
  it('text without digits or @ comes back as the same string', () => {
    const text = 'Nothing to see here, just words and punctuation.';
    expect(redactText(text)).toBe(text);
  });

  it('a long hostile text is redacted in linear time', () => {
    const text = `${'1.'.repeat(50_000)} ${'a'.repeat(50_000)}@ ${'9 '.repeat(50_000)}`;
    const started = performance.now();
    redactText(text);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
