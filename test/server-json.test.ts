// server.json, the MCP Registry entry: valid against the registry's schema 2025-12-11 (a fixture, see
// test/fixtures/README.md), within the registry's rules, and describing what the server really is.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };

const root = new URL('../', import.meta.url);
const readJson = <T>(path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8')) as T;
const serverJson = readJson<{
  $schema: string;
  name: string;
  description: string;
  version: string;
  remotes: Array<{ type: string; url: string; variables?: Record<string, { description?: string; isRequired?: boolean }> }>;
}>('server.json');
const schema = readJson<{ $id: string }>('test/fixtures/server.schema.json');
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

describe('server.json', () => {
  it("validates against the registry's schema, the one it declares", () => {
    expect(serverJson.$schema).toBe(schema.$id);
    expect(schema.$id).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    // The schema uses OpenAPI's `example` and `discriminator`, which strict mode refuses as unknown keywords.
    const validate = addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);
    expect(validate(serverJson), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('fails validation for what the registry refuses (the check is not vacuous)', () => {
    const validate = addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);
    expect(validate({ ...serverJson, description: 'x'.repeat(101) })).toBe(false);
    expect(validate({ ...serverJson, name: 'corpus-mcp' })).toBe(false);
    expect(validate({ ...serverJson, remotes: [{ type: 'streamable-http', url: 'docs.example.com/mcp' }] })).toBe(false);
  });

  it('has the version of package.json', () => {
    expect(serverJson.version).toBe(pkg.version);
  });

  it('is named io.github.<owner>/corpus-mcp, with a description of at most 100 characters', () => {
    expect(serverJson.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/corpus-mcp$/);
    const repository = (pkg as { repository?: string | { url?: string } }).repository;
    const repositoryUrl = typeof repository === 'string' ? repository : repository?.url;
    // Once package.json names the repository, the namespace must be its owner (the registry checks it).
    if (repositoryUrl !== undefined) expect(serverJson.name.split('/')[0]).toBe(`io.github.${/github\.com[/:]([^/]+)\//.exec(repositoryUrl)?.[1]}`);
    expect(serverJson.description.length).toBeLessThanOrEqual(100);
  });

  it('offers a streamable-http remote whose URL is a template for the team\'s own host, its variable described', () => {
    expect(serverJson.remotes).toHaveLength(1);
    const [remote] = serverJson.remotes;
    expect(remote!.type).toBe('streamable-http');
    const variables = [...remote!.url.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    expect(variables).toEqual(['host']);
    expect(remote!.url).toBe('https://{host}/mcp');
    for (const name of variables) {
      expect(remote!.variables?.[name]?.description).toMatch(/\S{3}/);
      expect(remote!.variables?.[name]?.isRequired).toBe(true);
    }
  });
});
