import MockBackendHTTP
import TestSupport
import Testing

@Suite("Media type syntax (RFC 9110 §8.3.1)")
struct MediaTypeSyntaxTests {
    @Test(
        "accepts what RFC 9110 allows",
        arguments: [
            "text/event-stream",
            "text/event-stream;",
            "text/event-stream ;",
            "text/event-stream;;",
            "text/event-stream; ;charset=utf-8",
            "text/event-stream ; charset=utf-8",
            "text/event-stream;charset=utf-8;",
            "text/event-stream\t;\tcharset=utf-8",
            "text/plain; charset=\"utf-8\"",
            "text/plain; title=\"a \\\"quoted\\\" \\\\ value; with=signs\"",
            "text/plain; empty=\"\"",
            "application/vnd.api+json; profile=x; ext=y",
            "TEXT/Event-Stream",
            "a/b",
            "x-!#$%&'*+.^_`|~/y",
        ])
    func accepts(_ text: String) {
        #expect(MediaType.isValid(text))
    }

    @Test(
        "rejects what it does not",
        arguments: [
            "",
            "text",
            "text/",
            "/event-stream",
            "/",
            "text/event stream",
            "text /event-stream",
            "text/ event-stream",
            " text/event-stream",
            "text/event-stream ",
            "text/event-stream; ",
            "text/event-stream\r\n",
            "text/event-stream;\r\nX-Injected: 1",
            "text/event-stream; charset=utf-8\n",
            "text/event-stream; charset",
            "text/event-stream; charset=",
            "text/event-stream; =utf-8",
            "text/event-stream; charset = utf-8",
            "text/event-stream; charset=\"unterminated",
            "text/event-stream; charset=\"bad\\\u{7F}\"",
            "text/event-stream; charset=\"utf-8\"x",
            "text/event-stream; a=b c",
            "text/event-stream, text/plain",
            "text/event(stream)",
            "text/évent-stream",
            "text/event-stream; charset=\"été\"",
        ])
    func rejects(_ text: String) {
        #expect(!MediaType.isValid(text))
    }
}
