import { ApiError } from '../core/errors.ts';
import { answers } from '../core/responses.ts';
import { Data, IdParams } from '../core/schemas.ts';
import { instantOf } from '../core/time.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';
import { completeView, recordDownload, recordVisit } from './commands.ts';
import {
  CompleteBody,
  DownloadBody,
  DownloadSchema,
  ViewBody,
  ViewSchema,
  VisitBody,
  VisitSchema,
} from './schemas.ts';
import type { StartView } from './view-starts.ts';

export interface TrackingRouteDeps extends AdminRouteDeps {
  /** How view starts are written: startView itself, or the composition root's thread (view-thread.ts). */
  startView: StartView;
}

/** What the viewer-tracking front end records: visits, views and downloads. */
export function trackingAdminRoutes(app: TypedFastify, { write, startView }: TrackingRouteDeps): void {
  const tags = ['Tracking'];

  app.post(
    '/links/:id/visits',
    {
      schema: {
        operationId: 'recordVisit',
        tags,
        summary: 'A visit: the link was opened (a click)',
        params: IdParams,
        body: VisitBody,
        response: answers(201, Data(VisitSchema), 400, 404, 409),
      },
    },
    async (request, reply) => {
      const { viewer } = request.body;
      const at = instantOf(request.body.at, 'at') ?? undefined;
      const data = await write(request, (ctx) => recordVisit(ctx, request.params.id, { viewer, at }));
      return reply.code(201).send({ data });
    },
  );

  app.post(
    '/links/:id/views',
    {
      schema: {
        operationId: 'startView',
        tags,
        summary: 'A view starts (view.started, and viewer.created or viewer.returned)',
        description: 'It counts at once, with duration 0 until completed. Starting a view is not a visit.',
        params: IdParams,
        body: ViewBody,
        response: answers(201, Data(ViewSchema), 400, 404, 409),
      },
    },
    async (request, reply) => {
      const { startedAt, ...rest } = request.body;
      const start = { ...rest, startedAt: instantOf(startedAt, 'startedAt') ?? undefined };
      const data = await write(request, (ctx) => startView(ctx, request.params.id, start));
      return reply.code(201).send({ data });
    },
  );

  app.post(
    '/views/:id/complete',
    {
      schema: {
        operationId: 'completeView',
        tags,
        summary: 'A view ends, with its duration (view.completed); once per view',
        params: IdParams,
        body: CompleteBody,
        response: answers(200, Data(ViewSchema), 400, 404, 409),
      },
    },
    async (request) => ({
      data: await write(request, (ctx) => completeView(ctx, request.params.id, request.body)),
    }),
  );

  app.post(
    '/links/:id/downloads',
    {
      schema: {
        operationId: 'recordDownload',
        tags,
        summary: 'A download: 201 when allowed (download.created), 403 when not (download.denied, recorded)',
        description:
          "Allowed when the document's `downloadOverride`, or else the link's `allowDownload`, is true.",
        params: IdParams,
        body: DownloadBody,
        response: answers(201, Data(DownloadSchema), 400, 403, 404, 409),
      },
    },
    async (request, reply) => {
      const { at, ...rest } = request.body;
      const input = { ...rest, at: instantOf(at, 'at') ?? undefined };
      const { allowed, download } = await write(request, (ctx) =>
        recordDownload(ctx, request.params.id, input),
      );
      if (!allowed)
        throw new ApiError('download_denied', 'Downloads of this document are not allowed through this link');
      return reply.code(201).send({ data: download });
    },
  );
}
