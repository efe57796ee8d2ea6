/** Pins tokenisation (issue 18): identifiers, scripts, accents, data runs, stop words and stemming. */
import { expect } from 'chai';
import { lightStem, porterStem } from './stem';
import { MAX_RUN_CHARS, tokenize } from './text';

const raw = (s: string) => tokenize(s, { stemmer: 'none' });

describe('tokenize', () => {
  it('splits camelCase and keeps the joined form', () => {
    expect(raw('getBaziDetail')).to.deep.equal(['get', 'bazi', 'detail', 'getbazidetail']);
    expect(raw('HTMLParser')).to.deep.equal(['html', 'parser', 'htmlparser']);
    expect(tokenize('getBaziDetail', { stemmer: 'none', compounds: false })).to.deep.equal(['get', 'bazi', 'detail']);
  });

  it('splits snake, kebab, dots and slashes, and keeps letter-digit words whole', () => {
    expect(raw('get_weread-rank.v2/list')).to.deep.equal(['get', 'weread', 'rank', 'v2', 'list']);
    expect(raw('convert mp3 to s3 via ipv4')).to.deep.equal(['convert', 'mp3', 's3', 'ipv4']);
  });

  it('drops stop words, pure numbers and over-long tokens', () => {
    expect(raw('Please find the 3 best hotels in 2025 for me')).to.deep.equal(['find', 'best', 'hotels']);
    expect(raw(`${'x'.repeat(33)} ok`)).to.deep.equal(['ok']);
  });

  it('strips accents from Latin words and folds compatibility forms (NFKC)', () => {
    expect(raw('Café Crème Ｆｕｌｌｗｉｄｔｈ')).to.deep.equal(['cafe', 'creme', 'fullwidth']);
    expect(raw('ﬁle')).to.deep.equal(['file']);
  });

  it('turns CJK spans into bigrams (a lone character stays) and splits them from Latin', () => {
    expect(raw('获取今日头条')).to.deep.equal(['获取', '取今', '今日', '日头', '头条']);
    expect(raw('八字 of a boy')).to.deep.equal(['八字', 'boy']);
    expect(raw('生')).to.deep.equal(['生']);
    expect(raw('Bing搜索API')).to.deep.equal(['bing', '搜索', 'api']);
  });

  it('keeps other scripts whole and their marks (Cyrillic, Devanagari)', () => {
    expect(raw('Погода Москва')).to.deep.equal(['погода', 'москва']);
    expect(raw('मौसम')).to.deep.equal(['मौसम']);
  });

  it('treats control and format characters as separators and drops data runs', () => {
    expect(raw('weather\u0000forecast\u200bcity\u202etoday')).to.deep.equal(['weather', 'forecast', 'city', 'today']);
    expect(raw(`describe this ${'iVBORw0KGgo+AAAA/'.repeat(20)} image`)).to.deep.equal(['describe', 'image']);
    expect(raw(`a${'b'.repeat(MAX_RUN_CHARS - 1)}`).length).to.equal(0); // one run of exactly the limit: kept, but one token > 32
    expect(raw('https://www.youtube.com/watch?v=abc')).to.deep.equal(['https', 'www', 'youtube', 'com', 'watch', 'v', 'abc']);
  });

  it('handles lone surrogates and empty text safely', () => {
    expect(raw('')).to.deep.equal([]);
    expect(raw('\ud800weather\udfff')).to.deep.equal(['weather']);
  });

  it('takes the same ASCII fast path and general path to the same tokens', () => {
    const text = 'Fetch_URL andConvert\tto-markdown. ok/done';
    expect([...raw(text), 'cafe']).to.deep.equal(raw(`${text} café`));
  });
});

describe('stemmers', () => {
  it('light folds inflections so both sides meet, and protects short words', () => {
    const same = (a: string, b: string) => expect(lightStem(a), `${a} / ${b}`).to.equal(lightStem(b));
    same('searching', 'search');
    same('searches', 'search');
    same('created', 'create');
    same('creates', 'create');
    same('queries', 'query');
    same('images', 'image');
    same('files', 'file');
    same('stopped', 'stop');
    expect(lightStem('bus')).to.equal('bus');
    expect(lightStem('ios')).to.equal('ios');
    expect(lightStem('uses')).to.equal('use');
    expect(lightStem('generalization')).to.equal('generalization'); // derivations are left alone
  });

  it('porter follows the 1980 paper', () => {
    const cases: Record<string, string> = {
      caresses: 'caress', ponies: 'poni', relational: 'relat', conditional: 'condit', hopefulness: 'hope', generalization: 'gener',
      adjustment: 'adjust', controlling: 'control', rolling: 'roll', happy: 'happi', electricity: 'electr',
    };
    for (const [w, s] of Object.entries(cases)) expect(porterStem(w), w).to.equal(s);
  });
});
