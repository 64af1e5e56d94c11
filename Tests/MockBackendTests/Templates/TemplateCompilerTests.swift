import Testing

@testable import MockBackend

/// What a template may not be: each refusal names the helper, or what is broken and where.
@Suite("Response templates: refusals")
struct TemplateCompilerTests {
    @Test(
        arguments: [
            ("{{regexExtract request.body '[A-Z]+' 'parts'}}", "regexExtract"),
            ("{{hostname}}", "hostname"),
            ("{{capitalize request.path}}", "capitalize"),
            ("{{#if (contains request.body 'x')}}y{{/if}}", "contains"),
            ("{{#with request}}{{path}}{{/with}}", "with"),
            ("{{#neq request.method 'GET'}}x{{/neq}}", "neq"),
            ("{{lookup request.query 'ids[].1'}}", "lookup"),
            ("{{request.thing 'argument'}}", "request.thing"),
        ])
    func anUnknownHelperIsRefusedByName(_ template: String, _ helper: String) {
        #expect(throws: TemplateCompileError.unsupportedHelper(helper)) { try TemplateCompiler.compile(template) }
    }

    @Test(
        arguments: [
            ("{{#if request.query.a}}yes", "has {{#if request.query.a}} that is never closed (no {{/if}})"),
            ("{{#if a}}x{{/each}}", "closes {{#if a}} with {{/each}} (line 1, column 11)"),
            ("x{{/if}}", "has {{/if}} without an open block (line 1, column 2)"),
            ("{{else}}", "has {{else}} outside a block"),
            ("{{#if a}}1{{else}}2{{else}}3{{/if}}", "has a second {{else}}"),
            (
                "line\n  {{> header}}",
                "has a partial ({{>…}}), which is not supported: a template reads only its mapping and the request (line 2, column 3)"
            ),
            ("{{#> layout}}x{{/layout}}", "partial block or decorator"),
            ("{{*inline}}", "decorator"),
            ("{{{{raw}}}}x{{{{/raw}}}}", "raw block"),
            ("{{=<% %>=}}", "changes the delimiters"),
            ("{{request.path", "has a tag that is never closed"),
            ("{{jsonPath request.body}}", "jsonPath takes 2 positional arguments, not 1"),
            ("{{now zone='UTC'}}", "now has no argument zone"),
            ("{{now offset='3 fortnights'}}", "now has the offset '3 fortnights'"),
            ("{{now timezone='Mars/Olympus'}}", "names no time zone"),
            ("{{randomValue type='EMOJI'}}", "randomValue has the type EMOJI"),
            ("{{jsonPath request.body '$.a[?(x)]'}}", "jsonPath's path"),
            ("{{#if}}x{{/if}}", "{{#if}} takes one value"),
            ("{{ }}", "has an empty tag"),
            ("{{#if a b}}x{{/if}}", "{{#if}} takes one value"),
            ("{{if a}}", "{{if}} is a block helper"),
            ("{{#now}}x{{/now}}", "{{#now}} is not a block helper"),
            ("{{jsonPath request.body 'unclosed}}", "has a tag that is never closed"),
            ("{{@parent}}", "names the data variable @parent"),
            (
                String(repeating: "{{#if a}}", count: 65) + String(repeating: "{{/if}}", count: 65),
                "nests blocks more than 64 deep"
            ),
        ])
    func aBrokenTemplateIsRefusedSayingWhere(_ template: String, _ reason: String) {
        do {
            _ = try TemplateCompiler.compile(template)
            Issue.record("\(template) compiled")
        } catch .syntax(let message) {
            #expect(message.contains(reason), "\(message)")
        } catch {
            Issue.record("\(template): \(error)")
        }
    }

    @Test func textWithoutATagIsNoTemplate() throws {
        #expect(try TemplateCompiler.compile(#"{"plain": "json", "braces": "{ }"}"#) == nil)
        #expect(try TemplateCompiler.compile("{{request.path}}") != nil)
    }
}
