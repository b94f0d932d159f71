import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, StringColumn as StringColumn_, BooleanColumn as BooleanColumn_, IntColumn as IntColumn_, JSONColumn as JSONColumn_, DateTimeColumn as DateTimeColumn_} from "@subsquid/typeorm-store"

/**
 * Contracts whose source is known: those deployed from this project's own compiled artifacts (the indexer records them) and those verified through the API (docs/contract-verification.md).
 */
@Entity_()
export class VerifiedContract {
    constructor(props?: Partial<VerifiedContract>) {
        Object.assign(this, props)
    }

    /**
     * contract address
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    name!: string

    @StringColumn_({nullable: false})
    sourceName!: string

    @StringColumn_({nullable: false})
    compilerVersion!: string

    @StringColumn_({nullable: false})
    evmVersion!: string

    @BooleanColumn_({nullable: false})
    optimizationEnabled!: boolean

    @IntColumn_({nullable: true})
    optimizationRuns!: number | undefined | null

    /**
     * source path -> source text
     */
    @JSONColumn_({nullable: false})
    sources!: unknown

    @JSONColumn_({nullable: false})
    abi!: unknown

    @StringColumn_({nullable: true})
    constructorArguments!: string | undefined | null

    @DateTimeColumn_({nullable: false})
    verifiedAt!: Date

    /**
     * full, or partial: the code matched but the metadata hash differs; null for the indexer's own (always full)
     */
    @StringColumn_({nullable: true})
    matchType!: string | undefined | null

    /**
     * the compiler settings of the standard JSON input it was compiled with
     */
    @JSONColumn_({nullable: true})
    compilerSettings!: unknown | undefined | null

    /**
     * the SPDX-License-Identifier the main source declares, read once when verified so that lists never scan sources
     */
    @StringColumn_({nullable: true})
    spdx!: string | undefined | null

    /**
     * the ABI's functions by selector (0x and 8 hex digits) -> name, computed when verified so that lists name a call without reading the ABI
     */
    @JSONColumn_({nullable: false})
    selectors!: unknown
}
