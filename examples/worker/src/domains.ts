// The domains this Worker serves: a compiled ontology (Layer A, imported as a Data module) and the
// declarative projection rules that build and update Layer B. Add a domain by adding a line here.
import airlineBlob from "polar-guard/ontologies/airline/airline.blob";
import airlineProjection from "polar-guard/ontologies/airline/projection.json";

export interface Domain {
  blob: ArrayBuffer;
  projection: unknown;
}

export const DOMAINS: Record<string, Domain> = {
  airline: { blob: airlineBlob, projection: airlineProjection },
};
