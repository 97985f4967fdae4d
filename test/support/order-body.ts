/** The body of a create-order call (POST /temp_ordenes and /ordenes, and the job they send): header and lines. */

/** An account at CAJA1 of the branch's company, with the fields a test adds or changes. */
export function orderBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { estacion: 'CAJA1', idEmpresa: '0000000001', ...fields };
}
