import { expect } from 'chai'
import express, { RequestHandler } from 'express'
import fc from 'fast-check'
import { z } from 'zod'
import pino from 'pino'
import { Answer, ApiDoc } from '../../common/service/api-doc'
import { errorHandler, ErrorSurface } from '../../common/service/error-handler'
import { HttpError } from '../../common/service/http-error'
import { listen, RunningServer } from '../../common/service/listen'
import { schemaValidator } from '../support/fuzz/answers'
import { OpenApiDocument } from '../support/fuzz/document'
import { describeFailures, fuzzApi, FuzzOptions, FuzzReport } from '../support/fuzz/fuzz'
import { invalidValues } from '../support/fuzz/invalid-values'
import { validValues } from '../support/fuzz/valid-values'

/** The fuzzer itself, against small apps documented with ApiDoc: quiet on a correct one, and it catches each kind of fault. */

// The 500s are the point of some cases here: their log lines are not wanted.
const quiet = pino({ level: 'silent' })

type Fault = 'none' | 'throws' | 'undocumented status' | 'wrong body' | 'documented 503'

const errorBody = z.object({ error: z.string() })
const surface: ErrorSurface = {
    name: 'sample',
    body: (err) => ({ error: err.message }),
    parserFault: ({ status }) => new HttpError(status, 'the body could not be read'),
    internalMessage: 'internal error',
}

const thingParams = z.object({ id: z.string().regex(/^\d{1,6}$/) })
const thingQuery = z.object({ full: z.enum(['true', 'false']).optional(), limit: z.coerce.number().int().min(1).max(50).optional() })
const thing = z.object({ id: z.string(), name: z.string(), tags: z.array(z.string()) })
const newThing = z.object({
    name: z.string().min(1).max(20),
    count: z.number().int().min(0).max(10),
    tags: z.array(z.enum(['red', 'blue'])).max(3).optional(),
    owner: z.object({ email: z.email(), since: z.iso.datetime().optional() }).optional(),
})
const tagHeader = z.object({ 'x-tag': z.string().regex(/^[a-z]{1,8}$/).optional() })

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
    const result = schema.safeParse(value)
    if (!result.success) throw new HttpError(422, result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
    return result.data
}

/** A small app: GET and POST on things, correct or with one fault. */
function sampleApp(fault: Fault) {
    const doc = new ApiDoc({ title: 'Sample', version: '1', errorSchema: errorBody })
    const app = express()
    const things = doc.router('/api/things', 'Things')
    const getThing: RequestHandler = (req, res) => {
        const { id } = parse(thingParams, req.params)
        const query = parse(thingQuery, req.query)
        if (fault === 'throws' && query.full === 'true') throw new Error('a handler bug')
        if (fault === 'documented 503' && query.limit !== undefined) throw new HttpError(503, 'the store is away')
        if (Number(id) > 1000) throw new HttpError(404, 'no such thing')
        res.json(fault === 'wrong body' && query.limit !== undefined ? { id: Number(id), name: 'n' } : { id, name: `thing ${id}`, tags: [] })
    }
    const answers: Record<number, Answer | string> = { 200: { description: 'The thing', schema: thing }, 400: 'A malformed path', 404: 'No such thing', 422: 'Invalid parameter' }
    if (fault === 'documented 503') answers[503] = 'The store is away'
    things.get('/:id', { operationId: 'getThing', summary: 'One thing', params: thingParams, query: thingQuery, responses: answers }, getThing)
    things.post('/', {
        operationId: 'makeThing',
        summary: 'Make a thing',
        headers: tagHeader,
        body: newThing,
        responses: { 201: { description: 'Made', schema: z.object({ id: z.string() }) }, 400: 'Unreadable JSON', 413: 'Body too large', 415: 'Not UTF-8', 422: 'Invalid thing' },
    }, express.json(), (req, res) => {
        parse(tagHeader, req.headers)
        const body = parse(newThing, req.body)
        if (fault === 'undocumented status' && body.count > 5) return void res.status(409).json({ error: 'too many' })
        res.status(201).json({ id: String(body.name.length) })
    })
    doc.mount(app, things)
    doc.serve(app)
    app.use(errorHandler(surface, quiet))
    return app
}

describe('fuzzer: property-based requests from an OpenAPI document, every answer checked against it', () => {
    const servers: RunningServer[] = []
    after(() => Promise.all(servers.map((s) => s.close())))

    async function fuzz(fault: Fault, options: Partial<FuzzOptions> = {}) {
        const server = await listen(sampleApp(fault), 0)
        servers.push(server)
        return fuzzApi({ baseUrl: `http://127.0.0.1:${server.port}`, seed: 42, runs: 60, ...options })
    }

    it('passes a correct app, reaching its success, not-found and every refusal', async () => {
        const report = await fuzz('none')
        expect(report.failures.length, describeFailures(report)).to.equal(0)
        // ApiDoc.serve documents the root index (GET /) and the document itself beside the app's routes.
        expect(report.operations.map((o) => o.key)).to.deep.equal(['GET /api/things/{id}', 'POST /api/things', 'GET /', 'GET /api/docs/openapi.json'])
        expect(report.requests).to.equal(8 * 60)
        expect(Object.keys(report.byOperation['GET /api/things/{id}']).map(Number)).to.include.members([200, 400, 404, 422])
        expect(Object.keys(report.byOperation['POST /api/things']).map(Number)).to.include.members([201, 400, 413, 422])
    })

    // An invalid request is a valid one with one part broken, so a fault may show in both kinds.
    const found = (report: FuzzReport) => [...new Set(report.failures.map((f) => `${f.operation}: ${f.problem}`))]

    it('catches a handler that throws (500) and says how to replay it', async () => {
        const report = await fuzz('throws')
        expect(found(report)).to.deep.equal(['GET /api/things/{id}: server error 500 (not documented either)'])
        const f = report.failures.find((r) => r.kind === 'valid')!
        expect(f.request.url).to.match(/full=true/)
        expect(f.answer?.status).to.equal(500)
        expect(describeFailures(report)).to.contain(`FUZZ_REPLAY='valid GET /api/things/{id}' FUZZ_PATH='${f.path}'`)

        const replayed = await fuzz('throws', { replay: { kind: 'valid', operation: f.operation, path: f.path } })
        expect(replayed.requests).to.be.greaterThan(0)
        expect(replayed.failures.map((r) => [r.problem, r.request.url])).to.deep.equal([[f.problem, f.request.url]])
    })

    it('catches a status the operation does not document', async () => {
        const report = await fuzz('undocumented status')
        expect(found(report)).to.deep.equal(['POST /api/things: status 409 is not documented (documented: 201, 400, 413, 415, 422)'])
        const f = report.failures.find((r) => r.kind === 'valid')!
        expect(JSON.parse(f.request.body!).count).to.be.greaterThan(5)
    })

    it('catches a body that breaks the schema of its status', async () => {
        const report = await fuzz('wrong body')
        expect(found(report)).to.have.length(1)
        expect(report.failures.map((f) => f.kind)).to.include('valid')
        expect(found(report)).to.deep.equal(['GET /api/things/{id}: the 200 body does not match its schema: (root) must have required property \'tags\' {"missingProperty":"tags"}; /id must be string {"type":"string"}'])
    })

    it('fails a documented 503 unless the surface expects it', async () => {
        const refused = await fuzz('documented 503')
        expect(found(refused)).to.deep.equal(['GET /api/things/{id}: server error 503'])
        const expected = await fuzz('documented 503', { expected5xx: [503] })
        expect(expected.failures, describeFailures(expected)).to.deep.equal([])
    })

    it('skips, or sends only invalid requests to, the operations it is told to; refuses names the document lacks', async () => {
        const report = await fuzz('throws', { skip: ['GET /api/docs/openapi.json', 'GET /'], invalidOnly: ['GET /api/things/{id}'] })
        expect(report.operations).to.deep.equal([
            { key: 'GET /api/things/{id}', kinds: ['invalid'] },
            { key: 'POST /api/things', kinds: ['valid', 'invalid'] },
        ])
        // `full=true` is valid, so the invalid requests rarely break only another part: the one fault may go unseen, never mis-reported.
        expect(report.failures.every((f) => f.problem.startsWith('server error 500'))).to.equal(true)
        let error: Error | undefined
        await fuzz('none', { skip: ['GET /api/nothing'] }).catch((err: Error) => (error = err))
        expect(error?.message).to.equal('fuzz options name GET /api/nothing, which the document does not have')
    })

    it('makes values that satisfy each schema, and values that break it', () => {
        const doc = new ApiDoc({ title: 'Values', version: '1', errorSchema: errorBody })
        doc.router('/v', 'V').post('/', { operationId: 'makeValue', summary: 'v', body: newThing, responses: { 200: 'ok', 422: 'no' } }, () => undefined)
        const document = new OpenApiDocument(doc.document())
        const schema = document.operations()[0].body!.schema
        const validate = schemaValidator().compile(schema as object)
        const resolve = (s: any) => document.resolve(s)
        fc.assert(fc.property(validValues(schema, resolve), (v) => validate(v)), { seed: 1, numRuns: 300 })
        // Hostile strings and unknown properties may well be allowed; every other broken value must not be.
        fc.assert(fc.property(invalidValues(schema, resolve)!, (b) => /hostile|unknown property/.test(b.why) || !validate(b.value)), { seed: 1, numRuns: 300 })
    })
})
