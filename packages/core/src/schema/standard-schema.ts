// The Standard Schema interfaces (standardschema.dev), declared locally so core depends on no
// validator library. zod v4, valibot and arktype implement `~standard`; those that can export
// JSON Schema also implement `~standard.jsonSchema` (Standard JSON Schema).

export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>
}

export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>
    readonly types?: Types<Input, Output> | undefined
    readonly jsonSchema?: JsonSchemaConverter | undefined
  }
  type Result<Output> = SuccessResult<Output> | FailureResult
  interface SuccessResult<Output> {
    readonly value: Output
    readonly issues?: undefined
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>
  }
  interface Issue {
    readonly message: string
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined
  }
  interface PathSegment {
    readonly key: PropertyKey
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input
    readonly output: Output
  }
  interface JsonSchemaConverter {
    readonly input: (options: { readonly target: string }) => Record<string, unknown>
    readonly output: (options: { readonly target: string }) => Record<string, unknown>
  }
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input']
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['output']
}
