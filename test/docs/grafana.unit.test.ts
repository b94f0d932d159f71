import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { REPO_ROOT } from '../support/paths'

/**
 * docs/grafana-dashboard.json is built on the metric names of docs/operations.md: every name a
 * panel queries is documented there, and every metric its tables document has a panel.
 */

const ROOT = REPO_ROOT
const METRIC = /\b(?:http|db_pool|indexer|bridge|process|nodejs)_[a-z_]+\b/g

/** A histogram's series are its name with _bucket, _count or _sum. */
const metricOf = (series: string) => series.replace(/_(bucket|count|sum)$/, '')

describe('docs: the Grafana dashboard', () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/grafana-dashboard.json'), 'utf8'))
    const operations = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8')
    const queried = new Set<string>(
        dashboard.panels.flatMap((p: any) => (p.targets ?? []).flatMap((t: any) => [...String(t.expr).matchAll(METRIC)].map((m) => metricOf(m[0])))),
    )
    /** The names in the first column of the metric tables. */
    const tabled = [...operations.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1])
    /** Every name the document mentions in backticks (the tables and the Node defaults in prose). */
    const documented = new Set([...operations.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]))

    it('queries only documented metrics', () => {
        expect(queried.size).to.be.greaterThan(10)
        expect([...queried].filter((name) => !documented.has(name))).to.deep.equal([])
    })

    it('has a panel for every metric the tables document', () => {
        expect(tabled.length).to.be.greaterThan(10)
        expect(tabled.filter((name) => !queried.has(name))).to.deep.equal([])
    })

    it('every panel asks the dashboard\'s Prometheus data source', () => {
        const panels = dashboard.panels.filter((p: any) => p.type !== 'row')
        expect(panels.every((p: any) => p.datasource?.uid === '${datasource}' && p.targets.length > 0)).to.equal(true)
    })
})
