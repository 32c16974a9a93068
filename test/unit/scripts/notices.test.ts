/** THIRD_PARTY_NOTICES (scripts/notices.ts): licence identifiers, and the licence file when package.json has none. */
import fs from 'node:fs';
import path from 'node:path';
import {
  collectNotices,
  licenseFromText,
  licenseOf,
  renderNotices,
  withNotices,
} from '../../../scripts/notices';

const root = path.resolve(__dirname, '../../..');

describe('third-party notices', () => {
  it("reads package.json's licence in its three forms, UNKNOWN when absent", () => {
    expect(licenseOf({ license: 'MIT' })).toBe('MIT');
    expect(licenseOf({ license: { type: 'BSD-3-Clause' } })).toBe('BSD-3-Clause');
    expect(licenseOf({ licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] })).toBe('(MIT OR Apache-2.0)');
    expect(licenseOf({})).toBe('UNKNOWN');
  });

  it('recognises MIT, ISC and Apache-2.0 texts across line breaks, and nothing else', () => {
    expect(
      licenseFromText(
        'MIT License\n\nPermission is hereby granted, free of charge, to any person\nobtaining a copy',
      ),
    ).toBe('MIT');
    expect(
      licenseFromText(
        'Permission to use, copy, modify, and/or distribute this software for any\npurpose with or without fee',
      ),
    ).toBe('ISC');
    expect(
      licenseFromText('                                 Apache License\n   Version 2.0, January 2004'),
    ).toBe('Apache-2.0');
    expect(licenseFromText('All rights reserved. Redistribution is not permitted.')).toBeNull();
  });

  it('lists png-js (no licence in its package.json) as MIT read from its LICENSE, and nothing as UNKNOWN', () => {
    const notices = collectNotices(root);
    const png = notices.find((n) => n.name === 'png-js');
    expect(png).toBeDefined();
    expect(png?.license).toBe('MIT (read from LICENSE; package.json declares none)');
    expect(notices.filter((n) => n.license === 'UNKNOWN').map((n) => n.name)).toEqual([]);
  });

  it('THIRD_PARTY_NOTICES is the generated text for the installed packages, with no UNKNOWN licence', () => {
    const text = fs.readFileSync(path.join(root, 'THIRD_PARTY_NOTICES'), 'utf8');
    expect(withNotices(text, renderNotices(collectNotices(root)))).toBe(text);
    expect(text).not.toMatch(/ UNKNOWN$/m);
  });
});
