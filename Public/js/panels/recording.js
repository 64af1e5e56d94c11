// Recording: start recording what goes through the proxy (optionally keeping each event
// stream's writes byte for byte), stop it, and download what it made: the mapping
// directory as a tar (`tar -xf`, then `mockbackend --mappings mappings`) and the request
// journal as HAR.

import { adminDownload, adminPost } from "../admin-api.js";
import { actionButton, badge, el } from "../dom.js";

const TONES = { Recording: "warn", Stopped: "ok", NeverStarted: "" };

export function renderRecording(container, recording, context) {
  const status = recording.status;
  const chunking = el("input", { attrs: { type: "checkbox", id: "recording-chunking" } });
  const recordingNow = status === "Recording";
  container.replaceChildren(
    el(
      "p",
      { dataset: { recordingStatus: status } },
      "Status: ",
      badge(status, TONES[status]),
      " ",
      recordingNow
        ? actionButton("Stop", "stop-recording", () =>
            context.act("stop recording", () => adminPost("/__admin/recordings/stop")),
          )
        : actionButton("Start", "start-recording", () =>
            context.act("start recording", () =>
              adminPost("/__admin/recordings/start", { preserveChunking: chunking.checked }),
            ),
          ),
    ),
    !recordingNow &&
      el("label", { className: "muted" }, chunking, " keep event streams' writes byte for byte (preserveChunking)"),
    el(
      "p",
      { className: "actions" },
      status !== "NeverStarted" &&
        actionButton("Mappings (.tar)", "download-recording", () =>
          context.act("download the recording", () =>
            adminDownload("/__admin/recordings/mappings.tar", "mockbackend-recording.tar"),
          ),
        ),
      actionButton("Requests (.har)", "download-har", () =>
        context.act("download the HAR", () =>
          adminDownload("/__admin/requests?format=har&limit=5000", "mockbackend.har"),
        ),
      ),
    ),
  );
}
