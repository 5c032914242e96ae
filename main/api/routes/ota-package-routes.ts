import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import {
  OtaPackage,
  OtaPackageInfo,
  OtaRollout,
  SaveOtaPackageInfoRequest,
} from '../../../shared/schemas/ota.ts';
import { badRequestParams, invalidArgument } from '../../platform/errors.ts';
import type { OtaUpload } from '../../platform/ota-packages.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const SORT = ['createdTime', 'title', 'version', 'type', 'tag'] as const;
/** multipart framing around the file */
const MULTIPART_OVERHEAD = 64 * 1024;
/** the largest package the upload route reads, whatever the budget (the budget check comes after) */
const MAX_PACKAGE_BYTES = 1024 * 1024 * 1024;

/** ThingsBoard's OtaPackageController (all 8 operations) and Sandboard's rollout view. */
export function registerOtaPackageRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['OTA packages'];
  const IdParams = Type.Object({ otaPackageId: Uuid });
  const packages = services.otaPackages;

  app.get(
    '/api/otaPackage/info/:otaPackageId',
    {
      schema: {
        tags,
        summary: "An OTA package's info",
        params: IdParams,
        response: { 200: OtaPackageInfo, ...authErrors },
      },
    },
    async (request) => packages.info(request.params.otaPackageId),
  );
  app.get(
    '/api/otaPackage/:otaPackageId',
    {
      schema: {
        tags,
        summary: 'An OTA package with its data (base64)',
        params: IdParams,
        response: { 200: OtaPackage, ...authErrors },
      },
    },
    async (request) => packages.withData(request.params.otaPackageId),
  );
  app.get(
    '/api/otaPackage/:otaPackageId/download',
    {
      schema: {
        tags,
        summary: "Download an OTA package's file",
        params: IdParams,
        response: {
          200: Type.String({ format: 'binary', description: "the package's bytes" }),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const row = packages.findRow(request.params.otaPackageId);
      const info = packages.info(request.params.otaPackageId);
      if (!row?.has_data) throw badRequestParams('The OTA package has no data (a URL package?)');
      const data = await packages.data(row);
      const name = (info.fileName ?? `${info.title}-${info.version}.bin`).replace(/[^\w.\- ]/g, '_');
      return reply
        .header('content-disposition', `attachment;filename=${name}`)
        .header('x-filename', name)
        .type(info.contentType || 'application/octet-stream')
        .send(data as unknown as string); // raw bytes: Fastify sends a Buffer as it is, unserialized
    },
  );
  app.get(
    '/api/otaPackages',
    {
      schema: {
        tags,
        summary: 'OTA packages (paged)',
        querystring: PageQuery(SORT),
        response: { 200: PageData(OtaPackageInfo), ...authErrors },
      },
    },
    async (request) => packages.page(request.query),
  );
  app.get(
    '/api/otaPackages/:deviceProfileId/:type',
    {
      schema: {
        tags,
        summary: "A device profile's OTA packages of a type (FIRMWARE or SOFTWARE) that have data or a URL",
        params: Type.Object({ deviceProfileId: Uuid, type: Type.String() }),
        querystring: PageQuery(SORT),
        response: { 200: PageData(OtaPackageInfo), ...authErrors },
      },
    },
    async (request) =>
      packages.pageForProfile(request.params.deviceProfileId, request.params.type, request.query),
  );
  app.post(
    '/api/otaPackage',
    {
      schema: {
        tags,
        summary: "Create or update an OTA package's info (a URL package with usesUrl and url)",
        body: SaveOtaPackageInfoRequest,
        response: { 200: OtaPackageInfo, ...authErrors },
      },
    },
    async (request) => packages.saveInfo(request.body, principalOf(request)),
  );
  app.delete(
    '/api/otaPackage/:otaPackageId',
    {
      schema: {
        tags,
        summary: 'Delete an OTA package (refused while assigned)',
        params: IdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await packages.delete(request.params.otaPackageId, principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/sandboard/otaPackage/:otaPackageId/rollout',
    {
      schema: {
        tags,
        summary: "Sandboard only: a package's rollout, its devices by update state and failures by reason",
        params: IdParams,
        response: { 200: OtaRollout, ...authErrors },
      },
    },
    async (request) => services.otaUpdates.rollout(request.params.otaPackageId),
  );

  // The upload: multipart/form-data with the file part "file"; checksumAlgorithm (and checksum) in the
  // query or as form fields, as Spring's @RequestParam reads them.
  void app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const limit =
      Math.min(MAX_PACKAGE_BYTES, services.storage.budgetBytes || MAX_PACKAGE_BYTES) + MULTIPART_OVERHEAD;
    scope.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'buffer', bodyLimit: limit },
      (_req, body, done) => done(null, body),
    );
    scope.post(
      '/api/otaPackage/:otaPackageId',
      {
        bodyLimit: limit,
        schema: {
          tags,
          summary:
            "Upload an OTA package's file (multipart part 'file'); the checksum is computed, a given one checked",
          params: IdParams,
          body: Type.Unknown({ description: "multipart/form-data with the package as the part 'file'" }),
          querystring: Type.Object({
            checksumAlgorithm: Type.Optional(Type.String({ maxLength: 32 })),
            checksum: Type.Optional(Type.String({ maxLength: 1020 })),
          }),
          response: { 200: OtaPackageInfo, ...authErrors },
        },
      },
      async (request) => {
        const actor = principalOf(request);
        const { fields, file } = await parseUpload(request.body, request.headers['content-type']);
        const algorithm = request.query.checksumAlgorithm ?? fields.checksumAlgorithm;
        if (!algorithm)
          throw badRequestParams(
            "Required request parameter 'checksumAlgorithm' for method parameter type String is not present",
          );
        const checksum = request.query.checksum ?? fields.checksum;
        return packages.saveData(request.params.otaPackageId, file, algorithm, checksum || undefined, actor);
      },
    );
  });
}

async function parseUpload(
  body: unknown,
  contentType: string | undefined,
): Promise<{ fields: Record<string, string>; file: OtaUpload }> {
  if (!Buffer.isBuffer(body) || !contentType?.startsWith('multipart/form-data'))
    throw badRequestParams("Current request is not a multipart request: send the file as the part 'file'");
  let form: FormData;
  try {
    form = await new Request('http://ota.local/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
  } catch (err) {
    throw badRequestParams(`Malformed multipart/form-data body: ${(err as Error).message}`);
  }
  const fields: Record<string, string> = {};
  let file: OtaUpload | undefined;
  for (const [name, value] of form) {
    if (typeof value === 'string') fields[name] = value;
    else if (name === 'file')
      file = {
        fileName: value.name || 'package.bin',
        contentType: value.type || 'application/octet-stream',
        data: Buffer.from(await value.arrayBuffer()),
      };
  }
  if (!file) throw invalidArgument("Required part 'file' is not present");
  return { fields, file };
}
