/**
 * The SPDX identifier a source file declares (`SPDX-License-Identifier: MIT`), or null. Read once,
 * when a contract is verified, and stored (`verified_contract.spdx`): what shows a licence then
 * never scans a source, whose size the submitter chooses. The migration that filled the column for
 * earlier rows (db/migrations/1795433300000-VerifiedContractListColumns.js) uses the same pattern.
 */
export function declaredSpdx(source: string | undefined): string | null {
    return source ? /SPDX-License-Identifier:\s*([^\s*]+)/.exec(source)?.[1] ?? null : null
}
