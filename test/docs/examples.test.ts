/**
 * The docs show the example configurations the tests run, not copies of them:
 * a block after `<!-- include: PATH -->` is the file at PATH exactly; no other
 * block of README.md or docs/*.md defines a Hive Gateway `gatewayConfig`; and
 * a router.yaml fragment (a YAML block with any of router.yaml's top-level
 * keys) says only what examples/apollo-router/router.yaml says, unless it is
 * marked `<!-- alternative -->` (another mode than the example's).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const ROUTER_YAML = 'examples/apollo-router/router.yaml';
const GATEWAY_CONFIG = 'examples/hive-gateway/gateway.config.ts';

interface Block {
  page: string;
  line: number;
  language: string;
  code: string;
  /** The HTML comment on the line before the fence, if any (`include: PATH`, `alternative`, `checked`). */
  marker?: string;
}

const FENCED = /(?:^<!-- (.+?) -->\n)?^```(\w*)\n([\s\S]*?)^```$/gm;

function blocksOf(page: string): Block[] {
  const markdown = readFileSync(path.join(ROOT, page), 'utf8');
  return [...markdown.matchAll(FENCED)].map((match) => ({
    page,
    line: markdown.slice(0, match.index).split('\n').length,
    marker: match[1],
    language: match[2],
    code: match[3],
  }));
}

const pages = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).flatMap((name) => (name.endsWith('.md') ? [`docs/${name}`] : []))];
const blocks = pages.flatMap(blocksOf);
const includedFile = (block: Block) => /^include: (\S+)$/.exec(block.marker ?? '')?.[1];

/** Whether everything `fragment` says, `whole` says too: same scalars, keys present, each list item matched. */
function saysOnlyWhat(fragment: unknown, whole: unknown): boolean {
  if (Array.isArray(fragment))
    return Array.isArray(whole) && fragment.every((item) => whole.some((candidate) => saysOnlyWhat(item, candidate)));
  if (typeof fragment === 'object' && fragment !== null) {
    if (typeof whole !== 'object' || whole === null || Array.isArray(whole)) return false;
    return Object.entries(fragment).every(([key, value]) => saysOnlyWhat(value, (whole as Record<string, unknown>)[key]));
  }
  return fragment === whole;
}

test('each included block is the file it names, byte for byte', () => {
  const included = blocks.filter((block) => includedFile(block) !== undefined);
  expect(included.map(includedFile)).toEqual(expect.arrayContaining([ROUTER_YAML, GATEWAY_CONFIG]));
  for (const block of included) {
    const file = readFileSync(path.join(ROOT, includedFile(block) as string), 'utf8');
    expect({ where: `${block.page}:${block.line}`, code: block.code }).toEqual({ where: `${block.page}:${block.line}`, code: file });
  }
});

test('docs/security.md shows both routers whole', () => {
  const security = blocks.filter((block) => block.page === 'docs/security.md').map(includedFile);
  expect(security).toEqual(expect.arrayContaining([ROUTER_YAML, GATEWAY_CONFIG]));
});

test('no other block defines a Hive Gateway config', () => {
  const copies = blocks.filter((block) => includedFile(block) === undefined && /\bgatewayConfig\b/.test(block.code));
  expect(copies.map((block) => `${block.page}:${block.line}`)).toEqual([]);
});

test('router.yaml fragments say only what the example says (other modes marked as alternatives)', () => {
  const routerYaml = parse(readFileSync(path.join(ROOT, ROUTER_YAML), 'utf8')) as Record<string, unknown>;
  const fragments = blocks.filter(
    (block) =>
      block.language === 'yaml' &&
      includedFile(block) === undefined &&
      block.marker !== 'alternative' &&
      Object.keys((parse(block.code) as Record<string, unknown> | null) ?? {}).some((key) => key in routerYaml),
  );
  expect(fragments.length).toBeGreaterThan(0);
  const divergent = fragments.filter((block) => !saysOnlyWhat(parse(block.code), routerYaml));
  expect(divergent.map((block) => `${block.page}:${block.line}`)).toEqual([]);
});

test('the fragment check catches a value the example does not have', () => {
  const whole = {
    demand_control: { strategy: { static_estimated: { max: 1000, list_size: 10 } } },
    headers: { list: [{ a: 1 }, { b: 2 }] },
  };
  expect(saysOnlyWhat({ demand_control: { strategy: { static_estimated: { max: 1000 } } } }, whole)).toBe(true);
  expect(saysOnlyWhat({ demand_control: { strategy: { static_estimated: { max: 2000 } } } }, whole)).toBe(false);
  expect(saysOnlyWhat({ headers: { list: [{ b: 2 }] } }, whole)).toBe(true);
  expect(saysOnlyWhat({ headers: { list: [{ c: 3 }] } }, whole)).toBe(false);
});
