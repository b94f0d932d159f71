import { expect } from 'chai'
import * as fs from 'fs'

/**
 * SplitDataSource (indexer/fetch-split.ts) replaces one method of Subsquid's RPC data source. This
 * holds that method to the text it was written against: an SDK upgrade that changes it fails here,
 * and whoever upgrades compares the two (or drops the override if the SDK made the split a setting).
 */
describe('indexer: the SDK method the fetch split replaces', () => {
    it('is, in @subsquid/evm-processor, still the one SplitDataSource reproduces with a literal split of 10', () => {
        const source = fs.readFileSync(require.resolve('@subsquid/evm-processor/lib/ds-rpc/client.js'), 'utf8')
        const start = source.indexOf('    getFinalizedBlocks(requests, stopOnHead) {')
        const end = source.indexOf('    async _getColdSplit(req) {')
        expect(start, 'getFinalizedBlocks in the SDK').to.be.greaterThan(0)
        expect(end, '_getColdSplit after it').to.be.greaterThan(start)
        const method = source.slice(start, end).replace(/\s+/g, ' ').trim()
        expect(method).to.equal([
            'getFinalizedBlocks(requests, stopOnHead) {',
            'return (0, util_internal_ingest_tools_1.coldIngest)({',
            'getFinalizedHeight: () => this.getFinalizedHeight(),',
            'getSplit: req => this._getColdSplit(req),',
            'requests: (0, util_internal_range_1.mapRangeRequestList)(requests, req => this.toMappingRequest(req)),',
            'splitSize: 10,',
            'concurrency: Math.min(5, this.rpc.client.getConcurrency()),',
            'stopOnHead,',
            'headPollInterval: this.headPollInterval',
            '}); }',
        ].join(' '))
    })
})
