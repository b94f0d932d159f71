import { expect } from 'chai'
import * as fs from 'fs'
import { repoPath } from '../support/paths'

/** deploy/haproxy.cfg's settings are read by HAProxy, not by our schemas: this keeps docs/configuration.md#gateway whole. */
describe('docs/configuration.md: the gateway', function () {
    const config = fs.readFileSync(repoPath('deploy', 'haproxy.cfg'), 'utf8')
    const doc = fs.readFileSync(repoPath('docs', 'configuration.md'), 'utf8')
    const section = doc.slice(doc.indexOf('\n## Gateway\n'))
    const documented = [...section.matchAll(/^\| `(GATEWAY_[A-Z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => ({ name: m[1], default: m[2].trim() }))

    it('lists every GATEWAY_* variable deploy/haproxy.cfg reads, and no other', function () {
        const read = new Set([...config.matchAll(/\$\{(GATEWAY_[A-Z0-9_]+)\}/g)].map((m) => m[1]))
        expect(documented.map((v) => v.name).sort()).to.deep.equal([...read].sort())
    })

    it('states the defaults the file sets', function () {
        const defaults = new Map([...config.matchAll(/^\s*presetenv (GATEWAY_[A-Z0-9_]+) (.+)$/gm)].map((m) => [m[1], m[2].replace(/^"|"$/g, '')]))
        for (const v of documented) {
            if (!defaults.has(v.name)) {
                expect(v.default, v.name).to.match(/^unset/)
                continue
            }
            const stated = v.default.replace(/`/g, '').replace('{BRIDGE_PORT}', '${BRIDGE_PORT}')
            expect(stated, v.name).to.equal(defaults.get(v.name))
        }
    })
})
