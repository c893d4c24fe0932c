// An RFC 4180 parser that fails on anything RFC 4180 does not allow: what the export tests and the
// bench check exports with (a lenient parser would accept a broken export).

/**
 * Records of an RFC 4180 text: CRLF between records (and after the last), fields quoted when they
 * hold a comma, quote, CR or LF, quotes doubled inside. Throws on a bare quote in an unquoted field,
 * text after a closing quote, a bare CR or LF outside quotes, or an unterminated last record.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const fail = (why: string) => {
    throw new Error(`CSV: ${why} at offset ${i} (record ${records.length + 1})`);
  };
  const unquoted = /[^,"\r\n]*/y;
  while (i < text.length) {
    let field: string;
    if (text[i] === '"') {
      field = '';
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote === -1) fail('unterminated quoted field');
        field += text.slice(i, quote);
        i = quote + 1;
        if (text[i] !== '"') break;
        field += '"';
        i++;
      }
    } else {
      unquoted.lastIndex = i;
      field = unquoted.exec(text)![0];
      i += field.length;
      if (text[i] === '"') fail('quote in an unquoted field');
    }
    record.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      records.push(record);
      record = [];
      i += 2;
      continue;
    }
    fail(i >= text.length ? 'the last record has no CRLF' : `unexpected ${JSON.stringify(text[i])} after a field`);
  }
  return records;
}
