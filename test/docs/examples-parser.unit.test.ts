import { expect } from 'chai'
import { parseExamples, parseRequest, shapeDifferences } from './examples'

/** The parser and the shape comparison test/docs/examples.test.ts runs the documented examples with. */
describe('docs examples: parser and shape comparison', () => {
    const fence = '```'
    const doc = [
        'Text.', '',
        `${fence}http`, 'POST /api/wallet/send?x=1', 'x-user-pwd: secret', '', '{ "address_from": "{{wallet}}", "amount": "1.5" }', fence,
        `${fence}json`, '{ "success": true, "hash": "0x01" }', fence,
        '', `${fence}js`, 'not an example', fence,
    ].join('\n')

    it('reads each http block with the json answer after it, and fills placeholders', () => {
        const [example, ...rest] = parseExamples(doc)
        expect(rest).to.deep.equal([])
        expect(example.answer).to.deep.equal({ success: true, hash: '0x01' })
        expect(parseRequest(example.request, { wallet: '0xabc' })).to.deep.equal({
            method: 'POST', path: '/api/wallet/send?x=1', headers: { 'x-user-pwd': 'secret' }, body: { address_from: '0xabc', amount: '1.5' },
        })
        expect(() => parseRequest(example.request, {})).to.throw(/\{\{wallet\}\} is not known/)
    })

    it('refuses an http block without its answer right after', () => {
        expect(() => parseExamples(`${fence}http\nGET /\n${fence}\nA word.\n${fence}json\n{}\n${fence}`)).to.throw(/followed by its json answer/)
        expect(() => parseExamples(`${fence}http\nGET /\n${fence}\n${fence}json\n{ nope\n${fence}`)).to.throw(/not JSON/)
    })

    it('compares keys and JSON types recursively, lists by their first elements', () => {
        const documented = { a: '1', b: { c: 2, d: null }, list: [{ e: true }] }
        expect(shapeDifferences({ a: 'x', b: { c: 9, d: null }, list: [{ e: false }, { other: 1 }] }, documented)).to.deep.equal([])
        expect(shapeDifferences({ a: 1, b: { c: 2 }, list: [{ e: true, f: 1 }], g: 0 }, documented)).to.deep.equal([
            '$.g: not documented', '$.a: number, documented as string', '$.b.d: documented, not answered', '$.list[0].f: not documented',
        ])
        expect(shapeDifferences({ list: [] }, { list: [{ e: true }] })).to.deep.equal([])
        expect(shapeDifferences({ list: {} }, { list: [] })).to.deep.equal(['$.list: object, documented as array'])
    })
})
