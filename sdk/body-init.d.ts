/**
 * The generated fetch client (sdk/gen/client/client.gen.ts) names the DOM
 * type `BodyInit`. Our tsconfig has no DOM lib (lib es2022 + @types/node,
 * whose fetch types do not declare `BodyInit` globally), and @hey-api 0.95
 * has no option to avoid the name, so it is declared here from Node's own
 * `RequestInit`. Remove this file if the project ever adds the DOM lib
 * (it would then be a duplicate identifier).
 */
type BodyInit = NonNullable<RequestInit['body']>;
