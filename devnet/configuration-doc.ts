import * as fs from 'fs'
import * as path from 'path'
import { z } from 'zod'
import { ChainApiSettingsSchema } from '../api/chain/config'
import { VerificationSettingsSchema } from '../api/chain/verification/config'
import { ExplorerSettingsSchema } from '../api/explorer/config'
import { PlatformSettingsSchema } from '../api/platform/config'
import { BitcoinSettingsSchema } from '../bridge/chains/bitcoin/config'
import { SolanaSettingsSchema } from '../bridge/chains/solana/config'
import { TronSettingsSchema } from '../bridge/chains/tron/config'
import { BridgeSettingsSchema, BridgeWebhookSettingsSchema } from '../bridge/config'
import { SecretsSchema, SharedSettingsSchema } from '../common/config'
import { IndexerSettingsSchema } from '../indexer/config'
import { NftMetadataSettingsSchema } from '../indexer/nft-metadata/config'
import { LauncherEnvSchema, LauncherSettingsSchema } from '../launcher/config'
import { DevnetSettingsSchema } from './config'

/**
 * `npm run docs:config`: renders the variable tables of docs/configuration.md from the surfaces'
 * schemas, between `<!-- variables: NAME -->` and `<!-- end variables -->`; the prose around them
 * is kept as written. test/docs/configuration.unit.test.ts fails when the file differs from the rendering.
 */

// From lib/devnet/ when built, from devnet/ when the unit suite runs the sources (tsx).
export const CONFIGURATION_DOC = [path.resolve(__dirname, '../docs/configuration.md'), path.resolve(__dirname, '../../docs/configuration.md')]
    .find((file) => fs.existsSync(file)) ?? path.resolve(__dirname, '../../docs/configuration.md')

/** The tables docs/configuration.md holds, by marker name; every variable of every process is in exactly one. */
const TABLES: Record<string, z.ZodObject[]> = {
    shared: [SharedSettingsSchema],
    devnet: [LauncherSettingsSchema, DevnetSettingsSchema],
    indexer: [IndexerSettingsSchema],
    'nft-metadata': [NftMetadataSettingsSchema],
    'chain-api': [ChainApiSettingsSchema, VerificationSettingsSchema],
    explorer: [ExplorerSettingsSchema],
    platform: [PlatformSettingsSchema],
    secrets: [SecretsSchema],
    bridge: [BridgeSettingsSchema],
    bitcoin: [BitcoinSettingsSchema],
    tron: [TronSettingsSchema],
    solana: [SolanaSettingsSchema],
    webhooks: [BridgeWebhookSettingsSchema],
}

type Def = { type: string; [key: string]: any }
const defOf = (schema: z.ZodType): Def => (schema as any)._zod.def

/** The schema below the optional, default and transform wrappers: what the variable's text must be. */
function unwrap(schema: z.ZodType): z.ZodType {
    const def = defOf(schema)
    if (def.type === 'optional' || def.type === 'default') return unwrap(def.innerType)
    if (def.type === 'pipe') return unwrap(def.in)
    return schema
}

function defaultOf(schema: z.ZodType): unknown {
    const def = defOf(schema)
    if (def.type === 'default') return def.defaultValue
    return def.type === 'optional' || def.type === 'pipe' ? defaultOf(def.innerType ?? def.in) : undefined
}

/** A check's own message, without "must be", as a description of the valid values. */
function message(check: Def): string | undefined {
    const text: unknown = check.error?.({})
    return typeof text === 'string' ? text.replace(/^must (be|look) /, '') : undefined
}

/** The values a variable accepts, as its schema checks them. */
function validValues(schema: z.ZodType): string {
    const def = defOf(unwrap(schema))
    const checks: Def[] = (def.checks ?? []).map((c: any) => c._zod.def)
    switch (def.type) {
        case 'enum':
            return Object.values(def.entries as Record<string, string>).map((v) => `\`${v}\``).join(', ')
        case 'union':
            return (def.options as z.ZodType[]).map(validValues).join(', or ')
        case 'number': {
            const integer = checks.some((c) => c.check === 'number_format')
            const min = checks.find((c) => c.check === 'greater_than')
            const max = checks.find((c) => c.check === 'less_than')
            const kind = integer ? 'integer' : 'number'
            if (min?.inclusive && max?.inclusive) return `${kind} ${min.value} to ${max.value}`
            const bounds = [
                min && (min.inclusive ? `from ${min.value}` : `above ${min.value}`),
                max && (max.inclusive ? `at most ${max.value}` : `below ${max.value}`),
            ]
            return [kind, bounds.filter(Boolean).join(', ')].join(' ').trim()
        }
        case 'string': {
            for (const check of checks) {
                if (check.check === 'string_format' && check.format === 'url') return 'URL'
                const text = message(check)
                if (text) return text
                if (check.check === 'min_length' && check.minimum > 1) return `text of ${check.minimum}+ characters`
            }
            return 'text'
        }
        default:
            throw new Error(`no rendering of a ${def.type} variable`)
    }
}

function cell(text: string): string {
    return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function row(name: string, schema: z.ZodType): string {
    const meta = z.globalRegistry.get(schema)
    if (!meta?.description) throw new Error(`${name} has no description in its schema`)
    const value = defaultOf(schema)
    const shown = value === undefined ? meta.unset ?? 'unset' : typeof value === 'string' ? `\`${value}\`` : String(value)
    return `| \`${name}\` | ${cell(shown)} | ${cell(validValues(schema))} | ${cell(meta.description)} |`
}

function table(schemas: z.ZodObject[]): string {
    const rows = schemas.flatMap((s) => Object.entries(s.shape).map(([name, schema]) => row(name, schema as z.ZodType)))
    return ['| Variable | Default | Values | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

/** docs/configuration.md as it must read: `current` with every table rendered anew. */
export function renderConfigurationDoc(current: string): string {
    const seen = new Set<string>()
    const rendered = current.replace(/(<!-- variables: ([a-z-]+) -->\n)[\s\S]*?(<!-- end variables -->)/g, (_all, open: string, name: string, close: string) => {
        const schemas = TABLES[name]
        if (!schemas) throw new Error(`docs/configuration.md names no table "${name}"`)
        if (seen.has(name)) throw new Error(`docs/configuration.md holds the table "${name}" twice`)
        seen.add(name)
        return `${open}${table(schemas)}\n${close}`
    })
    const missing = Object.keys(TABLES).filter((name) => !seen.has(name))
    if (missing.length) throw new Error(`docs/configuration.md lacks the tables ${missing.join(', ')}`)
    const documented = Object.values(TABLES).flatMap((schemas) => schemas.flatMap((s) => Object.keys(s.shape)))
    const twice = documented.filter((name, i) => documented.indexOf(name) !== i)
    if (twice.length) throw new Error(`more than one table lists ${twice.join(', ')}`)
    const undocumented = Object.keys(LauncherEnvSchema.shape).filter((name) => !documented.includes(name))
    if (undocumented.length) throw new Error(`no table lists ${undocumented.join(', ')}`)
    return rendered
}

if (require.main === module) {
    fs.writeFileSync(CONFIGURATION_DOC, renderConfigurationDoc(fs.readFileSync(CONFIGURATION_DOC, 'utf8')))
    console.log(`wrote ${path.relative(process.cwd(), CONFIGURATION_DOC)}`)
}
