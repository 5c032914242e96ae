/**
 * Geofencing zones as ThingsBoard's perimeter attributes hold them: a polygon `[[lat, lng], ...]` (possibly
 * nested, with holes as further rings ignored) or a circle `{"latitude", "longitude", "radius", "radiusUnit"}`.
 */

export type Zone =
  | { kind: 'polygon'; points: [number, number][] }
  | { kind: 'circle'; lat: number; lng: number; radiusM: number };

const UNIT_M: Record<string, number> = {
  METER: 1,
  KILOMETER: 1000,
  FOOT: 0.3048,
  MILE: 1609.344,
  NAUTICAL_MILE: 1852,
};

const isPair = (v: unknown): v is [number, number] =>
  Array.isArray(v) && v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number';

/** A zone from an attribute's value (JSON text or parsed), or null when it is no perimeter. */
export function parseZone(raw: unknown): Zone | null {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (Array.isArray(v)) {
    let ring: unknown = v;
    // [[[lat, lng], ...], hole...]: the outer ring
    while (Array.isArray(ring) && ring.length > 0 && Array.isArray(ring[0]) && !isPair(ring[0]))
      ring = ring[0];
    if (!Array.isArray(ring) || ring.length < 3 || !ring.every(isPair)) return null;
    return { kind: 'polygon', points: ring.map((p) => [p[0], p[1]]) };
  }
  if (v && typeof v === 'object') {
    const c = v as Record<string, unknown>;
    const lat = Number(c.latitude);
    const lng = Number(c.longitude);
    const radius = Number(c.radius);
    const unit = UNIT_M[String(c.radiusUnit ?? 'METER')] ?? 1;
    if ([lat, lng, radius].every(Number.isFinite))
      return { kind: 'circle', lat, lng, radiusM: radius * unit };
  }
  return null;
}

const EARTH_M = 6_371_008.8;

function distanceM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

export function insideZone(zone: Zone, lat: number, lng: number): boolean {
  if (zone.kind === 'circle') return distanceM(zone.lat, zone.lng, lat, lng) <= zone.radiusM;
  let inside = false;
  const pts = zone.points;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [yi, xi] = pts[i]!;
    const [yj, xj] = pts[j]!;
    if (yi > lat !== yj > lat && lng < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
