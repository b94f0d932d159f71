import express, { NextFunction, Request, RequestHandler, Response } from 'express'
import multer from 'multer'
import { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { clientKey } from '../../../common/service/client-ip'
import { HttpError } from '../../../common/service/http-error'
import { ChainContext, setLiveCaching } from '../context'
import { invalidParam } from '../errors'
import { AddressPath, addressParam, parseQuery } from '../params'
import { ChainError, chainOperation, ChainValidationError } from '../schemas'
import { ContractVerification, VerificationRefused } from '../verification/service'
import { ConstructorArgs, flattenedInput, StandardInput, Submission } from '../verification/submission'

const TAG = 'smart-contracts'

const STARTED = 'Smart-contract verification started'

/** Blockscout's license types and their numbers; a submission may name either. */
const LICENSE_TYPES = {
    none: 1, unlicense: 2, mit: 3, gnu_gpl_v2: 4, gnu_gpl_v3: 5, gnu_lgpl_v2_1: 6, gnu_lgpl_v3: 7, bsd_2_clause: 8,
    bsd_3_clause: 9, mpl_2_0: 10, osl_3_0: 11, apache_2_0: 12, gnu_agpl_v3: 13, bsl_1_1: 14,
} as const

/** The EVM versions solc takes as `evmVersion`, and `default` for the compiler's own. */
const EVM_VERSIONS = ['default', 'prague', 'cancun', 'shanghai', 'paris', 'london', 'berlin', 'istanbul', 'petersburg',
    'constantinople', 'byzantium', 'spuriousDragon', 'tangerineWhistle', 'homestead'] as const

const LicenseType = z.union([
    z.enum(Object.keys(LICENSE_TYPES) as [keyof typeof LICENSE_TYPES]),
    z.coerce.number().int().min(1).max(14),
]).optional()

/** Form fields are text: "true"/"false" as Blockscout's form sends them. */
const formBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((s) => s === 'true')])

const StandardInputForm = z.object({
    compiler_version: z.string().min(1).max(100),
    contract_name: z.string().min(1).max(1_100).optional(),
    autodetect_constructor_args: formBoolean.optional(),
    constructor_args: ConstructorArgs.optional(),
    license_type: LicenseType,
})

const FlattenedCodeBody = z.object({
    compiler_version: z.string().min(1).max(100),
    source_code: z.string().min(1),
    contract_name: z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'a contract name').max(200),
    is_optimization_enabled: formBoolean,
    optimization_runs: z.coerce.number().int().min(0).max(4_294_967_295).optional(),
    evm_version: z.enum(EVM_VERSIONS).optional(),
    libraries: z.record(z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/), z.string().regex(/^0x[0-9a-fA-F]{40}$/)).optional(),
    autodetect_constructor_args: formBoolean.optional(),
    constructor_args: ConstructorArgs.optional(),
    license_type: LicenseType,
})

const VerificationConfig = z.object({
    solidity_compiler_versions: z.array(z.string()),
    solidity_evm_versions: z.array(z.string()),
    verification_options: z.array(z.string()),
    vyper_compiler_versions: z.array(z.string()),
    vyper_evm_versions: z.array(z.string()),
    is_rust_verifier_microservice_enabled: z.boolean(),
    license_types: z.record(z.string(), z.number()),
})

const Started = z.object({ message: z.string() })

const verificationAnswers = {
    200: { description: `"${STARTED}" (then read the contract, or its socket channel, for the outcome), or "Already verified"`, schema: Started },
    413: 'The body (all its fields and files together) is larger than VERIFIER_MAX_INPUT_KB, or a form has more or longer fields than it takes',
    422: {
        description: 'A field failed validation or the compiler version is not installed (one error per field), or the address is not a contract ({message})',
        schema: z.union([ChainValidationError, ChainError]),
    },
    429: 'This client already has VERIFIER_PER_IP verifications waiting or compiling',
    503: 'The verification queue is full (VERIFIER_QUEUE_LIMIT); retry after the Retry-After seconds',
}

/** The form's fields are short but for constructor_args, ABI-encoded hex of up to 1,000,000 characters (and 0x). */
const FIELD_MAX_BYTES = 1_000_002

/** Multer's refusals of a part beyond its limits: each is a body larger than the form takes. */
const TOO_LARGE = new Set(['LIMIT_PART_COUNT', 'LIMIT_FILE_SIZE', 'LIMIT_FILE_COUNT', 'LIMIT_FIELD_KEY', 'LIMIT_FIELD_VALUE', 'LIMIT_FIELD_COUNT'])

/**
 * A multipart body held in memory, bounded as a whole: its declared length is checked before
 * anything is read, and the bytes are counted as they stream, the parse abandoned once they pass
 * maxBytes (multer's limits hold per part, so 20 parts of maxBytes would otherwise be read). The
 * form takes one file and a few short fields; more parts, or a longer one, are refused too.
 */
function multipartForm(maxBytes: number): RequestHandler {
    const parse = multer({
        storage: multer.memoryStorage(),
        limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: Math.min(maxBytes, FIELD_MAX_BYTES), fieldNameSize: 100, parts: 11 },
    }).any()
    const tooLarge = () => new HttpError(413, `The request is larger than ${maxBytes} bytes, or has more or longer fields than the form takes`)
    return (req: Request, res: Response, next: NextFunction) => {
        if (Number(req.headers['content-length']) > maxBytes) return next(tooLarge())
        let read = 0
        let settled = false
        const settle = (err?: unknown) => {
            if (settled) return
            settled = true
            req.off('data', count)
            next(err)
        }
        const count = (chunk: Buffer) => {
            read += chunk.length
            if (read <= maxBytes) return
            // What multer holds so far is dropped with it; the rest of the body is read and discarded.
            req.unpipe()
            req.resume()
            settle(tooLarge())
        }
        req.on('data', count)
        parse(req, res, (err?: unknown) => {
            if (!err) return settle()
            const code = (err as { code?: string }).code
            if (code && TOO_LARGE.has(code)) return settle(tooLarge())
            settle(new HttpError(400, `Unreadable multipart body: ${err instanceof Error ? err.message : String(err)}`))
        })
    }
}

/** Parses a body, its problems answered as Blockscout answers invalid parameters (422, one per field). */
function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
    return parseQuery(schema, body ?? {})
}

/** The standard JSON input of a multipart submission: its one file (Blockscout's form names it files[0]). */
function uploadedInput(req: Request): StandardInput {
    const files = (req.files ?? []) as Express.Multer.File[]
    if (files.length !== 1) throw invalidParam('files', 'one standard JSON input file is required')
    let json: unknown
    try {
        json = JSON.parse(files[0].buffer.toString('utf8'))
    } catch {
        throw invalidParam('files', 'the file is not JSON')
    }
    const parsed = StandardInput.safeParse(json)
    if (!parsed.success) throw invalidParam('files', `not a standard JSON input: ${parsed.error.issues[0]?.message}`)
    return parsed.data
}

/** Submits, answering a refusal in this API's words; a contract already verified is not an error here (Blockscout's 200). */
async function submit(verification: ContractVerification, req: Request, res: Response, sub: Submission): Promise<void> {
    try {
        await verification.submit(sub, clientKey(req))
        res.json({ message: STARTED })
    } catch (err) {
        if (!(err instanceof VerificationRefused)) throw err
        switch (err.refusal) {
            case 'already_verified': return void res.json({ message: 'Already verified' })
            case 'unknown_compiler': throw invalidParam('compiler_version', err.message)
            case 'no_contract': throw new HttpError(422, 'Address is not a smart-contract')
            case 'busy_client': throw new HttpError(429, err.message)
            case 'queue_full':
                res.set('Retry-After', '30')
                throw new HttpError(503, err.message)
        }
    }
}

/**
 * Blockscout's contract verification routes (docs/contract-verification.md). Registered before
 * /smart-contracts/:hash, which would take "verification" for a malformed address.
 */
export function smartContractVerificationRoutes(router: DocumentedRouter, ctx: ChainContext): void {
    const maxBytes = ctx.env.VERIFIER_MAX_INPUT_KB * 1024
    const verification = ctx.verification

    router.get('/smart-contracts/verification/config', chainOperation(TAG, {
        operationId: 'getVerificationConfig',
        summary: 'What verification accepts: the installed compilers, EVM versions, methods and license types',
    }, 'The configuration', VerificationConfig), async (_req, res) => {
        setLiveCaching(res)
        res.json({
            solidity_compiler_versions: (await verification.compilers.list()).map((c) => c.version),
            solidity_evm_versions: [...EVM_VERSIONS],
            verification_options: ['flattened-code', 'standard-input'],
            vyper_compiler_versions: [],
            vyper_evm_versions: [],
            is_rust_verifier_microservice_enabled: false,
            license_types: LICENSE_TYPES,
        })
    })

    router.post('/smart-contracts/:hash/verification/via/standard-input', {
        operationId: 'verifyContractStandardInput',
        summary: 'Verify a contract from the compiler\'s standard JSON input (a multipart form, as Blockscout\'s)',
        description: 'Fields `compiler_version`, `contract_name` (`path:Name` or `Name`), `autodetect_constructor_args`, '
            + '`constructor_args`, `license_type`, and the input as the file `files[0]`. The compile runs after the answer.',
        tags: [TAG],
        params: AddressPath,
        body: StandardInputForm.extend({ 'files[0]': z.string().meta({ format: 'binary' }) }),
        bodyType: 'multipart/form-data',
        responses: verificationAnswers,
    }, multipartForm(maxBytes), async (req, res) => {
        const address = addressParam(req.params.hash)
        const form = parseBody(StandardInputForm, req.body)
        await submit(verification, req, res, {
            address,
            compilerVersion: form.compiler_version,
            input: uploadedInput(req),
            contractName: form.contract_name,
            constructorArgs: form.autodetect_constructor_args === false ? form.constructor_args : undefined,
        })
    })

    router.post('/smart-contracts/:hash/verification/via/flattened-code', {
        operationId: 'verifyContractFlattenedCode',
        summary: 'Verify a contract from one flattened source file and its compiler settings',
        tags: [TAG],
        params: AddressPath,
        body: FlattenedCodeBody,
        responses: verificationAnswers,
    }, express.json({ limit: maxBytes }), async (req, res) => {
        const address = addressParam(req.params.hash)
        const body = parseBody(FlattenedCodeBody, req.body)
        await submit(verification, req, res, {
            address,
            compilerVersion: body.compiler_version,
            input: flattenedInput({
                source: body.source_code,
                contractName: body.contract_name,
                optimize: body.is_optimization_enabled,
                runs: body.optimization_runs,
                evmVersion: body.evm_version,
                libraries: body.libraries,
            }),
            contractName: body.contract_name,
            constructorArgs: body.autodetect_constructor_args === false ? body.constructor_args : undefined,
        })
    })
}
