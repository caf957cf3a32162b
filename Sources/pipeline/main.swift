import PipelineCLI

await PipelineMain.run()
